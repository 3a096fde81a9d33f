#!/usr/bin/env bash
# Writes the Helm chart's CRD template from manifests/crd, the one source of truth: the
# chart adds only its labels, the crd.enabled gate and helm.sh/resource-policy: keep.
# tests/charts checks that the rendered chart's CRDs equal the manifests.
set -euo pipefail
cd "$(dirname "$0")/.."
target=charts/ergobench/templates/crd.yaml
{
  echo '{{- if .Values.crd.enabled }}'
  echo '# Written by scripts/sync-chart-crd.sh from manifests/crd. Edit those files, then run the script.'
  first=1
  for source in manifests/crd/benchmarks.ergobench.io.yaml manifests/crd/datasets.ergobench.io.yaml manifests/crd/benchmarksweeps.ergobench.io.yaml; do
    [ "$first" = 1 ] || echo '---'
    first=0
    cat <<HEAD
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: $(basename "$source" .yaml)
  labels: {{- include "ergobench.labels" . | nindent 4 }}
  {{- if .Values.crd.keep }}
  annotations:
    helm.sh/resource-policy: keep
  {{- end }}
HEAD
    sed -n '/^spec:/,$p' "$source"
  done
  echo '{{- end }}'
} >"$target"
