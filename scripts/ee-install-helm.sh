#!/usr/bin/env bash
# Installs helm into /usr/local/bin of the execution environment (execution-environment.yml):
# ee-install-helm.sh BASE_URL VERSION downloads BASE_URL/helm-VERSION-linux-<arch>.tar.gz and its
# .sha256sum beside it (a mirror of the helm release downloads on an air-gapped site) and checks one
# against the other before installing. VERSION "none" installs nothing: an image for sites whose
# Trident install method is not helm (operator_manifests, preinstalled).
set -euo pipefail
base="${1:?usage: ee-install-helm.sh BASE_URL VERSION}"
version="${2:?usage: ee-install-helm.sh BASE_URL VERSION}"
if [ "$version" = none ]; then
  echo "helm: not installed (HELM_VERSION=none)"
  exit 0
fi
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64) arch=arm64 ;;
  *) echo "unsupported architecture $(uname -m)" >&2; exit 2 ;;
esac
tarball="helm-${version}-linux-${arch}.tar.gz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL -o "$work/$tarball" "${base%/}/$tarball"
curl -fsSL -o "$work/$tarball.sha256sum" "${base%/}/$tarball.sha256sum"
(cd "$work" && sha256sum -c "$tarball.sha256sum")
tar -xzf "$work/$tarball" -C "$work" "linux-${arch}/helm"
install -m 0755 "$work/linux-${arch}/helm" /usr/local/bin/helm
/usr/local/bin/helm version --short
