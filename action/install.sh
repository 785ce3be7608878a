#!/usr/bin/env bash
# Installs crit for the action: a released binary for this runner, verified
# against the release's SHA256SUMS before it is unpacked; or a build of the
# action's own checkout (`version: source`); or the crit already on PATH
# (`version: path`). Writes `crit=PATH` to $GITHUB_OUTPUT and puts it on PATH.
#
# Inputs (environment): INPUT_VERSION, CRIT_ACTION_REPOSITORY (owner/name),
# CRIT_ACTION_REF (the ref the action was used at), CRIT_RELEASE_BASE_URL
# (where releases live; default https://github.com/OWNER/NAME/releases),
# CRIT_SOURCE_DIR (the checkout `source` builds; default this script's).
set -euo pipefail

die() { echo "::error title=crit install::$*" >&2; exit 1; }

version="${INPUT_VERSION:-}"
if [ -z "$version" ]; then
  case "${CRIT_ACTION_REF:-}" in
    v[0-9]*) version="$CRIT_ACTION_REF" ;;
    *) version=latest ;;
  esac
fi

out="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/crit-bin"
mkdir -p "$out"

emit() {
  echo "crit=$1" >> "${GITHUB_OUTPUT:-/dev/null}"
  echo "$(dirname "$1")" >> "${GITHUB_PATH:-/dev/null}"
  "$1" --version
}

case "$version" in
  path)
    bin="$(command -v crit)" || die "version: path, but there is no crit on PATH"
    emit "$bin"
    exit 0
    ;;
  source)
    src="${CRIT_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
    cargo install --locked --root "$out" --path "$src"
    emit "$out/bin/crit"
    exit 0
    ;;
esac

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-musl ;;
  Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-musl ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  *) die "no released crit for $(uname -s) $(uname -m); use version: source" ;;
esac

repo="${CRIT_ACTION_REPOSITORY:-}"
base="${CRIT_RELEASE_BASE_URL:-}"
if [ -z "$base" ]; then
  [ -n "$repo" ] || die "cannot tell which repository's releases to use"
  base="https://github.com/$repo/releases"
fi
case "$version" in
  latest) url="$base/latest/download" ;;
  *) url="$base/download/$version" ;;
esac

asset="crit-$target.tar.gz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fetch() { curl --proto '=https,file' --tlsv1.2 -fsSL --retry 3 -o "$work/$1" "$url/$1"; }
fetch "$asset" || die "cannot download $url/$asset"
fetch SHA256SUMS || die "cannot download $url/SHA256SUMS"

want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")"
[ -n "$want" ] || die "SHA256SUMS of $version lists no $asset"
if command -v sha256sum >/dev/null 2>&1; then
  have="$(sha256sum "$work/$asset" | awk '{ print $1 }')"
else
  have="$(shasum -a 256 "$work/$asset" | awk '{ print $1 }')"
fi
[ "$have" = "$want" ] || die "checksum mismatch for $asset: expected $want, got $have"

tar -xzf "$work/$asset" -C "$work"
install -m 0755 "$work/crit" "$out/crit"
emit "$out/crit"
