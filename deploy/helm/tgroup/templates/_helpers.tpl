{{/* The namespace everything goes into. */}}
{{- define "tgroup.namespace" -}}
{{- if .Values.namespace.create -}}{{ .Values.namespace.name }}{{- else -}}{{ .Release.Namespace }}{{- end -}}
{{- end -}}

{{/* Selector labels: stable across upgrades. */}}
{{- define "tgroup.selectorLabels" -}}
app.kubernetes.io/name: tgroup
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Common labels. */}}
{{- define "tgroup.labels" -}}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{ include "tgroup.selectorLabels" . }}
{{- end -}}

{{- define "tgroup.image" -}}
{{ .Values.image.name }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
