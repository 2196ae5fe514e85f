/**
 * Where a Restate server is reached by default: its ingress, and its admin API (the ingress's host on port 9070).
 * No imports: the command line's parser reads them without loading the durable client.
 */
export const DEFAULT_INGRESS = 'http://127.0.0.1:8080';

/** The admin API's default port, next to the ingress's 8080. */
export const ADMIN_PORT = 9070;

/** The admin API of the server whose ingress is `ingress`: the same host, on port 9070. */
export function adminUrlOf(ingress: string): string {
  const url = new URL(ingress);
  url.port = String(ADMIN_PORT);
  return url.origin;
}
