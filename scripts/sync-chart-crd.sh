#!/usr/bin/env bash
# Writes the Helm chart's CRD template from manifests/crd, the one source of truth: the
# chart adds only its labels, the crd.enabled gate and helm.sh/resource-policy: keep.
# tests/charts checks that the rendered chart's CRD equals the manifest.
set -euo pipefail
cd "$(dirname "$0")/.."
source=manifests/crd/benchmarks.ergobench.io.yaml
target=charts/ergobench/templates/crd.yaml
{
  cat <<'HEAD'
{{- if .Values.crd.enabled }}
# Written by scripts/sync-chart-crd.sh from manifests/crd/benchmarks.ergobench.io.yaml.
# Edit that file, then run the script.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: benchmarks.ergobench.io
  labels: {{- include "ergobench.labels" . | nindent 4 }}
  {{- if .Values.crd.keep }}
  annotations:
    helm.sh/resource-policy: keep
  {{- end }}
HEAD
  sed -n '/^spec:/,$p' "$source"
  echo '{{- end }}'
} >"$target"
