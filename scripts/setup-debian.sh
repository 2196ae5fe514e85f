#!/usr/bin/env bash
# Installs the Debian or Ubuntu packages the tests need, and does nothing when they are all there. `npm test` runs it
# first (package.json's pretest), and so does .ci/run. It says what it installs; as a user other than root it installs
# with sudo. SETUP_DEBIAN_DRY_RUN=1: say what would be installed, and install nothing.
#
#   chromium     the viewer's browser tests (playwright-core drives Debian's /usr/bin/chromium)
#   bubblewrap   the bash tool's sandbox and its contained way (bwrap)
#   git          the tests of the sandbox's protected files, the Claude Code compatibility tests
#   jq           the tests that read the CLI's output with the filters Claude Code users write
#   tmux         the REPL's terminal tests and the terminal-injection test of the bash tool
#   procps       ps and pgrep, with which tests find what a command left running
#   perl-base    the terminal-injection test's TIOCSTI (essential on Debian; listed for slim images)
#   util-linux   unshare and setpriv: the contained way without bubblewrap, and tests as an unprivileged user
set -euo pipefail

need=()
want() { # want COMMAND PACKAGE: the package, unless the command is there
  command -v "$1" >/dev/null 2>&1 || [[ " ${need[*]-} " == *" $2 "* ]] || need+=("$2")
}
want chromium chromium
want bwrap bubblewrap
want git git
want jq jq
want tmux tmux
want ps procps
want pgrep procps
want perl perl-base
want unshare util-linux
want setpriv util-linux
[ ${#need[@]} -eq 0 ] && exit 0

# Ubuntu has no chromium package but a transitional one for its snap.
if [ -r /etc/os-release ] && . /etc/os-release && [ "${ID:-}" = ubuntu ]; then
  for i in "${!need[@]}"; do [ "${need[$i]}" = chromium ] && need[$i]=chromium-browser; done
fi

if [ "${SETUP_DEBIAN_DRY_RUN:-}" = 1 ]; then
  echo "setup-debian: would install ${need[*]}"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-debian: not a Debian or Ubuntu system (no apt-get): install ${need[*]} (or their equivalents) yourself; the tests that need them fail without them" >&2
  exit 0
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup-debian: the tests need ${need[*]}; as root: apt-get install ${need[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
echo "setup-debian: installing ${need[*]} (${sudo[*]:+with sudo, }apt-get install)" >&2
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
