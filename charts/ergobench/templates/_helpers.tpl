{{- /* The operator's name label: ergobench-operator, or nameOverride. */ -}}
{{- define "ergobench.name" -}}
{{- default "ergobench-operator" .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- /* The objects' names: fullnameOverride; else the release, with the chart's name (or
nameOverride) after it unless the release already holds it. */ -}}
{{- define "ergobench.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ergobench.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ergobench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ergobench.labels" -}}
{{ include "ergobench.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "ergobench.serviceAccountName" -}}
{{- default (include "ergobench.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{- define "ergobench.image" -}}
{{- printf "%s:%s" .repository (default .appVersion .tag) -}}
{{- end -}}

{{- define "ergobench.energyAgentSelectorLabels" -}}
app.kubernetes.io/name: ergobench-energy-agent
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "ergobench.energyAgentLabels" -}}
{{ include "ergobench.energyAgentSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
