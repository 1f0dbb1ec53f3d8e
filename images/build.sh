#!/usr/bin/env bash
# Builds the images under images/ without a Docker daemon, with Debian's buildah (run as root).
#
#   images/build.sh base          build (or reuse) the base image and print its name
#   images/build.sh [IMAGE...]    build images/IMAGE/Dockerfile (default: every image) as
#                                 localhost/strata/IMAGE:dev on the base, and print their names
#
# The base image stands in for node:24-bookworm-slim, which cannot be pulled here: a
# `debootstrap --variant=minbase` Debian bookworm with the Node binary of the repository's own
# npm package `node` (node_modules, pinned by package-lock.json), npm from the npm registry, and
# this machine's CA bundle so `npm ci` inside builds trusts what the host trusts. It is named
# after its inputs and reused while it exists (also by later runs on the same machine).
# Images build with --layers, so the `npm ci` stage, identical in every Dockerfile, runs once.
# Environment: BASE_IMAGE (use this base instead), TAG (default dev), DEBIAN_MIRROR.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
[ "$(id -u)" -eq 0 ] || { echo "images/build.sh: buildah and debootstrap need root" >&2; exit 1; }
for tool in buildah debootstrap; do
  command -v "$tool" >/dev/null || { echo "images/build.sh: $tool is not installed (apt-get install $tool)" >&2; exit 1; }
done

# The npm that Node 24.21 bundles; bump with the node devDependency.
NPM_VERSION=11.19.0
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
TAG=${TAG:-dev}
# Bump when ensure_base below changes, so machines that cached the old base build the new one.
BASE_REVISION=1
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
# chroot isolation: no OCI runtime needed (crun cannot set up cgroups in a hybrid hierarchy, nor raise rlimits without CAP_SYS_RESOURCE).
export BUILDAH_ISOLATION=chroot

# The Node binary of the npm package `node` (the package links it to node_modules/node/bin/node).
node_bin() {
  local bin
  bin=$(readlink -f "$repo/node_modules/node/bin/node" 2>/dev/null || true)
  [ -n "$bin" ] && [ -x "$bin" ] || { echo "images/build.sh: no Node binary in node_modules/node: run npm ci first" >&2; exit 1; }
  echo "$bin"
}

base_name() {
  local node version ca
  node=$(node_bin)
  version=$("$node" -v)
  ca=$(sha256sum "$CA_BUNDLE" | cut -c1-12)
  echo "localhost/strata-base:${version#v}-npm${NPM_VERSION}-${SUITE}-ca${ca}-r${BASE_REVISION}"
}

ensure_base() {
  if [ -n "${BASE_IMAGE:-}" ]; then echo "$BASE_IMAGE"; return; fi
  local name
  name=$(base_name)
  if buildah inspect --type image "$name" >/dev/null 2>&1; then echo "$name"; return; fi
  local start
  start=$(date +%s)
  # Globals, not locals: the EXIT trap runs after this function has returned.
  base_tmp=$(mktemp -d /var/tmp/strata-base.XXXXXX)
  base_ctr=
  trap 'rm -rf "$base_tmp"; [ -z "$base_ctr" ] || buildah rm "$base_ctr" >/dev/null 2>&1' EXIT
  echo "images/build.sh: building $name (debootstrap $SUITE from $MIRROR)" >&2
  if ! debootstrap --variant=minbase --include=passwd,libstdc++6 "$SUITE" "$base_tmp/root" "$MIRROR" >"$base_tmp/debootstrap.log" 2>&1; then
    tail -20 "$base_tmp/debootstrap.log" >&2
    echo "images/build.sh: debootstrap failed" >&2
    exit 1
  fi
  rm -rf "$base_tmp/root/var/cache/apt/archives/"*.deb "$base_tmp/root/var/lib/apt/lists/"* "$base_tmp/root/usr/share/doc" "$base_tmp/root/usr/share/man" "$base_tmp/root/usr/share/locale"
  (cd "$base_tmp" && npm pack --silent "npm@$NPM_VERSION" >/dev/null && mkdir npm && tar xzf "npm-$NPM_VERSION.tgz" -C npm)
  base_ctr=$(buildah from scratch)
  buildah copy --quiet "$base_ctr" "$base_tmp/root" /
  buildah copy --quiet "$base_ctr" "$(node_bin)" /usr/local/bin/node
  buildah copy --quiet "$base_ctr" "$base_tmp/npm/package" /usr/local/lib/node_modules/npm
  buildah copy --quiet "$base_ctr" "$CA_BUNDLE" /etc/ssl/certs/ca-certificates.crt
  buildah run "$base_ctr" -- sh -ec '
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
    mkdir -p /usr/local/etc && echo "cafile=/etc/ssl/certs/ca-certificates.crt" >/usr/local/etc/npmrc
    node -v >/dev/null && npm -v >/dev/null'
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node "$base_ctr"
  buildah commit --quiet --rm "$base_ctr" "$name" >/dev/null
  base_ctr=
  echo "images/build.sh: built $name in $(($(date +%s) - start)) s" >&2
  echo "$name"
}

# buildah reuses a cached `ENV X=${ARG}` layer when only the ARG's value changed
# (containers/buildah#5501), so with unchanged sources an image keeps the previous commit. The
# Dockerfiles are right for docker and BuildKit; here an image whose STRATA_GIT_SHA is another
# commit gets this one. One without it (the Dockerfile lost the ENV) is left alone, for
# test/containers to notice.
fix_git_sha() {
  local image=$1 sha=$2 env ctr
  env=$(buildah inspect --type image --format '{{range .OCIv1.Config.Env}}{{println .}}{{end}}' "$image" | sed -n 's/^STRATA_GIT_SHA=//p')
  [ -n "$env" ] && [ "$env" != "$sha" ] || return 0
  ctr=$(buildah from --pull-never "$image")
  buildah config --env "STRATA_GIT_SHA=$sha" "$ctr"
  buildah commit --quiet --rm "$ctr" "$image" >/dev/null
}

if [ "${1:-}" = base ]; then
  ensure_base
  exit 0
fi

base=$(ensure_base)
images=("$@")
if [ ${#images[@]} -eq 0 ]; then
  for d in images/*/Dockerfile; do images+=("$(basename "$(dirname "$d")")"); done
fi
sha=$(git rev-parse HEAD 2>/dev/null || echo unknown)
for image in "${images[@]}"; do
  [ -f "images/$image/Dockerfile" ] || { echo "images/build.sh: no images/$image/Dockerfile" >&2; exit 1; }
  start=$(date +%s)
  ignore=()
  [ -f "images/$image/Dockerfile.dockerignore" ] && ignore=(--ignorefile "images/$image/Dockerfile.dockerignore")
  if ! buildah bud --quiet --layers --network=host \
    --build-arg "BASE_IMAGE=$base" --build-arg "STRATA_GIT_SHA=$sha" \
    "${ignore[@]}" -f "images/$image/Dockerfile" -t "localhost/strata/$image:$TAG" . >&2; then
    echo "images/build.sh: images/$image/Dockerfile does not build" >&2
    exit 1
  fi
  fix_git_sha "localhost/strata/$image:$TAG" "$sha"
  echo "images/build.sh: built localhost/strata/$image:$TAG in $(($(date +%s) - start)) s" >&2
  echo "localhost/strata/$image:$TAG"
done
