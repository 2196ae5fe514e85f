/**
 * The inspector relay's page (stately.ts serves it): it frames the Stately inspector and passes it the events the
 * relay sends over a WebSocket, or says where the run can be stepped through offline when that page cannot load. Its
 * policy allows its own inline script and style by a nonce, the inspector's origin, the socket back, nothing else.
 */

/** What a page sends when the Stately page could not load: the only message a viewer may send. */
export const UNAVAILABLE = '@agentloop.unavailable';

/** How long the page waits for the Stately page to connect before it says it could not load. */
const CONNECT_TIMEOUT_MS = 15_000;

/** JSON inside a `<script type="application/json">`: `<` escaped so it cannot close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The bridge page's policy: its own inline script and style (by a nonce new with each page), the inspector's origin in
 * the frame and for the page's check that it can be reached, the WebSocket back to this server, nothing else; and no
 * page may frame it.
 */
export function bridgePolicy(inspectorUrl: string, port: number, nonce: string): string {
  const inspector = new URL(inspectorUrl).origin;
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `frame-src ${inspector}`,
    `connect-src ${inspector} ws://127.0.0.1:${port} ws://localhost:${port}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const escapeAttribute = (text: string) => text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page's look: the inspector's frame under one line of what it is, and the box that says it could not load. */
const STYLE = `  html, body { margin: 0; height: 100%; font: 14px system-ui, sans-serif; }
  body { display: flex; flex-direction: column; }
  iframe { width: 100%; flex: 1 1 auto; min-height: 0; border: 0; display: block; }
  [hidden] { display: none !important; }
  p { margin: 0; padding: 6px 12px; line-height: 1.4; background: #101828; color: #d0d5dd; font-size: 14px; overflow-wrap: anywhere; }
  #offline { margin: 16px; overflow-wrap: anywhere; padding: 16px 20px; border: 2px solid #f79009; border-radius: 10px; background: #fffaeb; font-size: 16px; line-height: 1.5; }
  #offline code, #offline a { font-size: 15px; overflow-wrap: anywhere; }
`;

/**
 * The page's script: the events from the relay's WebSocket (`token` lets it in) go to the inspector's frame once it
 * has said it is connected; when the Stately page cannot load, it says so (and where the run can be stepped through
 * offline) and tells the relay.
 */
function bridgeScript(token: string): string {
  return `  var config = JSON.parse(document.getElementById('offline-config').textContent);
  var frame = document.getElementById('inspector');
  var ready = false;
  var failed = false;
  var waiting = [];
  window.addEventListener('message', function (e) {
    if (e.data && e.data.type === '@statelyai.connected') {
      ready = true;
      waiting.forEach(function (event) { frame.contentWindow.postMessage(event, '*'); });
      waiting = [];
    }
  });
  var socket = new WebSocket('ws://' + location.host + '/?role=viewer&token=${token}');
  socket.onmessage = function (message) {
    var event = JSON.parse(message.data);
    if (ready) frame.contentWindow.postMessage(event, '*');
    else waiting.push(event);
  };
  // Offline, the Stately page cannot load: say so here (and, through the relay, in the terminal).
  function unavailable(reason) {
    if (ready || failed) return;
    failed = true;
    frame.hidden = true;
    var box = document.getElementById('offline');
    var line = function (text) { var p = document.createElement('div'); p.textContent = text; box.append(p); return p; };
    line('The Stately inspector could not load from ' + config.inspectorUrl + ' (' + reason + '). It needs the internet.');
    var where = line('The local step-through viewer shows the same run offline: ');
    if (config.viewerUrl) { var a = document.createElement('a'); a.href = config.viewerUrl; a.textContent = config.viewerUrl; where.append(a); }
    else if (config.command) { var c = document.createElement('code'); c.textContent = config.command; where.append(c); }
    box.hidden = false;
    var report = function () { socket.send(JSON.stringify({ type: '${UNAVAILABLE}', reason: reason })); };
    if (socket.readyState === 1) report(); else socket.addEventListener('open', report);
  }
  fetch(config.inspectorUrl, { mode: 'no-cors', cache: 'no-store' }).catch(function (e) { unavailable('it could not be reached: ' + e.message); });
  setTimeout(function () { unavailable('it did not answer within ${CONNECT_TIMEOUT_MS / 1000} s'); }, ${CONNECT_TIMEOUT_MS});
`;
}

export function bridgePage(inspectorUrl: string, token: string, nonce: string, offline: { viewerUrl?: string; command?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentloop · Stately inspector</title>
<style nonce="${nonce}">
${STYLE}</style>
</head>
<body>
<p>agentloop: inspection events relayed from 127.0.0.1 to the Stately inspector below (it loads from ${escapeAttribute(inspectorUrl)} and needs the internet).</p>
<div id="offline" data-testid="offline" hidden></div>
<iframe id="inspector" src="${escapeAttribute(inspectorUrl)}"></iframe>
<script type="application/json" id="offline-config">${scriptJson({ inspectorUrl, ...offline })}</script>
<script nonce="${nonce}">
${bridgeScript(token)}</script>
</body>
</html>`;
}
