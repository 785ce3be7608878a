#!/usr/bin/env bash
# Installs crit for the action, so that pinning the action pins crit:
#
# - at a release tag (`uses: crit-review/crit@v0.2.0`): that release's binary
#   for this runner, verified against the release's SHA256SUMS before it is
#   unpacked (a tag with no release builds the checkout instead, saying so);
# - at any other ref (a branch, a commit, a moving tag such as `v1`): a build
#   of the action's own checkout with `cargo install --locked`, kept in the
#   runner's tool cache under the ref and a hash of the sources, so the next
#   use of the same sources on this runner starts at once;
# - `version: latest`: the latest release; `version: vX.Y.Z`: that release;
#   `version: source`: the build; `version: path`: the crit already on PATH.
#
# Writes `crit=PATH` to $GITHUB_OUTPUT and puts its directory on PATH.
#
# Inputs (environment): INPUT_VERSION, CRIT_ACTION_REPOSITORY (owner/name),
# CRIT_ACTION_REF (the ref the action was used at), CRIT_RELEASE_BASE_URL
# (where releases live; default https://github.com/OWNER/NAME/releases),
# CRIT_SOURCE_DIR (the checkout to build; default this script's),
# CRIT_CACHE_DIR (where builds are kept; default $RUNNER_TOOL_CACHE/crit).
set -euo pipefail

die() { echo "::error title=crit install::$*" >&2; exit 1; }
if command -v sha256sum >/dev/null 2>&1; then SHA256=(sha256sum); else SHA256=(shasum -a 256); fi
notice() { echo "::notice title=crit install::$*"; }

ref="${CRIT_ACTION_REF:-}"
version="${INPUT_VERSION:-}"
if [ -z "$version" ]; then
  # Only a full version tag has a release; anything else is built.
  if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
    version="$ref"
  else
    version=source
  fi
fi

out="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/crit-bin"
mkdir -p "$out"

emit() {
  echo "crit=$1" >> "${GITHUB_OUTPUT:-/dev/null}"
  dirname "$1" >> "${GITHUB_PATH:-/dev/null}"
  "$1" --version
}

# The action's checkout, built once per ref and content.
build_source() {
  local src cache key name hash
  src="${CRIT_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"
  [ -f "$src/Cargo.toml" ] || die "no crit source at $src"
  command -v cargo >/dev/null 2>&1 \
    || die "building crit at ${ref:-this ref} needs Rust (cargo); add a Rust toolchain step, or use the action at a release tag (crit-review/crit@vX.Y.Z)"
  # What the build depends on: the manifests, the lock file and every source.
  local parts=() p
  for p in Cargo.toml Cargo.lock build.rs src crates .ci/test_deps_cfg.rs; do
    [ -e "$src/$p" ] && parts+=("$p")
  done
  hash="$(cd "$src" && find "${parts[@]}" -type f -print0 \
    | LC_ALL=C sort -z | xargs -0 "${SHA256[@]}" | "${SHA256[@]}" | cut -c1-16)"
  name="$(printf '%s' "${ref:-local}" | tr -c 'A-Za-z0-9._-' '_')"
  key="$name-$hash"
  cache="${CRIT_CACHE_DIR:-${RUNNER_TOOL_CACHE:-$out/cache}/crit}/source-$key"
  if [ -x "$cache/bin/crit" ]; then
    notice "crit built from ${ref:-this checkout} ($hash), from the runner's tool cache"
  else
    echo "Building crit from the action's checkout at ${ref:-this ref} (cargo install --locked)"
    rm -rf "$cache.partial"
    cargo install --locked --root "$cache.partial" --path "$src"
    rm -rf "$cache"
    mv "$cache.partial" "$cache"
  fi
  emit "$cache/bin/crit"
}

case "$version" in
  path)
    bin="$(command -v crit)" || die "version: path, but there is no crit on PATH"
    emit "$bin"
    exit 0
    ;;
  source)
    build_source
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
if ! fetch "$asset"; then
  # The action at a tag whose release was never published: its own checkout
  # is the crit it pins.
  if [ -z "${INPUT_VERSION:-}" ] && [ "$version" = "$ref" ]; then
    notice "no release $version with $asset; building the action's checkout instead"
    build_source
    exit 0
  fi
  die "cannot download $url/$asset"
fi
fetch SHA256SUMS || die "cannot download $url/SHA256SUMS"

want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")"
[ -n "$want" ] || die "SHA256SUMS of $version lists no $asset"
have="$("${SHA256[@]}" "$work/$asset" | awk '{ print $1 }')"
[ "$have" = "$want" ] || die "checksum mismatch for $asset: expected $want, got $have"

tar -xzf "$work/$asset" -C "$work"
install -m 0755 "$work/crit" "$out/crit"
emit "$out/crit"
