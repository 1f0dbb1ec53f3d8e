{{/* Name helpers: names stay within 63 characters. */}}
{{- define "strata-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "strata-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "strata-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "strata-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "strata-operator.labels" -}}
{{ include "strata-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: strata
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "strata-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "strata-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "strata-operator.defaultImage" -}}
{{- $root := index . 0 -}}{{- $component := index . 1 -}}
{{- $set := index $root.Values.defaultImages $component -}}
{{- if $set -}}{{ $set }}{{- else -}}strata/{{ $component }}:{{ $root.Chart.AppVersion }}{{- end -}}
{{- end -}}

{{/*
Namespaced rules the operator needs in every namespace it manages. Keep in sync with
operator/rbac.ts (test/helm compares the rendered rules with it).
*/}}
{{- define "strata-operator.namespacedRules" -}}
- apiGroups: ["strata.dev"]
  resources: ["authproxies", "authproxyusers", "tsdbclusters", "tsdbgateways", "tsdbsingles"]
  verbs: ["list", "watch"]
- apiGroups: ["strata.dev"]
  resources: ["authproxies/status", "authproxyusers/status", "tsdbclusters/status", "tsdbgateways/status", "tsdbsingles/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["configmaps", "secrets", "serviceaccounts", "services"]
  verbs: ["create", "delete", "list", "patch", "watch"]
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets"]
  verbs: ["create", "delete", "list", "patch", "watch"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["create", "delete", "list", "patch", "watch"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["create", "delete", "list", "patch", "watch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["pods/eviction"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
{{- end -}}
