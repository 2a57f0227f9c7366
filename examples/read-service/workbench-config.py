# jupyter_server_config.py of a workbench that reads cluster-wide objects through the shared read service
# (examples/read-service/read-service.yaml). The same by environment, in the workbench's pod spec or image:
#   JUPYTER_ACCEL_READ_SERVICE_URL=https://jupyter-accel-read-service.accel-system.svc:8443
#   JUPYTER_ACCEL_READ_SERVICE_CA_FILE=/var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt
# The workbench sends the token it uses for Kubernetes (its service account's, a runtime or forwarded user token,
# or a kubeconfig token); an identity with a client certificate has none to send, and reads directly instead.
c = get_config()  # noqa: F821 - provided by Jupyter when it loads this file

c.AccelConfig.read_service_url = "https://jupyter-accel-read-service.accel-system.svc:8443"
# OpenShift's service CA (mounted in every pod); elsewhere the CA that signed the service's certificate
c.AccelConfig.read_service_ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt"
