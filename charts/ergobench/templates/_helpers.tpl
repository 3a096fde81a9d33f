{{- define "ergobench.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "ergobench.selectorLabels" -}}
app.kubernetes.io/name: ergobench-operator
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
