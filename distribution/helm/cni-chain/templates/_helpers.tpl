{{/* Labels of every resource: the kustomize base's, Helm's own, and linkerd2-cni's commonLabels. */}}
{{- define "cni-chain.labels" -}}
app.kubernetes.io/part-of: cni-chain
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* A comma-separated list of ports as JSON strings, trimmed: "8000-9000, 25" gives "8000-9000","25". */}}
{{- define "cni-chain.portStrings" -}}
{{- $ports := list -}}
{{- range splitList "," . -}}
{{- $ports = append $ports (trim . | quote) -}}
{{- end -}}
{{- join "," $ports -}}
{{- end }}

{{/* linkerd2-cni's resources ({cpu: {request, limit}, ...}), each field only when set, over a default. */}}
{{- define "cni-chain.resources" -}}
{{- $out := deepCopy .defaults -}}
{{- range $resource, $amounts := .linkerd -}}
{{- if and $amounts $amounts.request -}}
{{- $_ := set $out "requests" (merge (dict $resource $amounts.request) (default dict $out.requests)) -}}
{{- end -}}
{{- if and $amounts $amounts.limit -}}
{{- $_ := set $out "limits" (merge (dict $resource $amounts.limit) (default dict $out.limits)) -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end }}

{{/* The agent's image */}}
{{- define "cni-chain.image" -}}
{{ .Values.cniChain.image.name }}:{{ .Values.cniChain.image.version | default .Chart.AppVersion }}
{{- end }}

{{/* Host paths mounted under /host: one volume when both directories are the same. */}}
{{- define "cni-chain.sameDirs" -}}
{{- if eq (clean .Values.destCNINetDir) (clean .Values.destCNIBinDir) }}true{{ end -}}
{{- end }}

{{/* cni-chain.yaml */}}
{{- define "cni-chain.agentConfig" -}}
{{- $c := .Values.cniChain -}}
{{- $config := dict
      "adapter" $c.adapter
      "hostRoot" "/host"
      "confDir" .Values.destCNINetDir
      "binDir" .Values.destCNIBinDir
      "sourceBinDir" "/opt/cni/bin"
      "healthPort" $c.healthPort
      "placement" $c.placement
      "cleanupOnShutdown" $c.cleanupOnShutdown
      "shutdownTimeoutSeconds" $c.shutdownTimeoutSeconds
      "periodicCheckSeconds" $c.periodicCheckSeconds
      "logLevel" $c.logLevel
      "logFormat" $c.logFormat
      "nodeTaint" (dict "key" $c.nodeTaint.key) -}}
{{- with $c.healthAddress }}{{ $_ := set $config "healthAddress" . }}{{ end -}}
{{- with $c.metricsAddress }}{{ $_ := set $config "metricsAddress" . }}{{ end -}}
{{- with $c.adapters }}{{ $_ := set $config "adapters" . }}{{ end -}}
{{- with $c.adapterOverrides }}{{ $_ := set $config "adapterOverrides" . }}{{ end -}}
{{- toYaml (mergeOverwrite $config (deepCopy $c.config)) -}}
{{- end }}

{{/* Where the probes reach the health listener: its address, or loopback when it listens on every address. */}}
{{- define "cni-chain.probeHost" -}}
{{- $address := .Values.cniChain.healthAddress | default "127.0.0.1" -}}
{{- if has $address (list "0.0.0.0" "::" "[::]") }}127.0.0.1{{ else }}{{ $address | trimPrefix "[" | trimSuffix "]" | quote }}{{ end -}}
{{- end }}

{{/* A host for a URL: an IPv6 address in brackets. */}}
{{- define "cni-chain.urlHost" -}}
{{- if contains ":" . }}[{{ . }}]{{ else }}{{ . }}{{ end -}}
{{- end }}
