// Package deploytest checks the Helm chart (deploy/helm/tgroup) as
// rendered by helm template: every manifest decoded strictly into the
// Kubernetes API types of k8s.io/api, and the deployment's rules checked
// (chart_test.go). It has no code of its own; it keeps k8s.io/api out of
// the plugin and of the guest's test binary.
package deploytest
