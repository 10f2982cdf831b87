package io.cnichain.agent.shutdown;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.core.json.CniJson;
import io.cnichain.agent.kube.FakeApiServer;
import io.cnichain.agent.kube.TestCertificates;
import io.cnichain.testkit.KubeletVolume;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Optional;

/**
 * What the agent asks on SIGTERM, served by the stand-in API server ({@link FakeApiServer}; no real API server can run
 * in these tests): the agent's pod {@code cni-chain/cni-chain-x7k2p}, owned by the DaemonSet {@code cni-chain/cni-chain}
 * (hostNetwork, a nodeSelector {@code kubernetes.io/os: linux}, tolerating every taint as the manifests do), and its
 * node {@code node-1}. The service account's token and CA are written where the agent reads them. Tests change the
 * objects to play an uninstall.
 */
public final class StandInCluster
        implements AutoCloseable
{
    public static final String NAMESPACE = "cni-chain";
    public static final String POD = "cni-chain-x7k2p";
    public static final String NODE = "node-1";
    public static final String DAEMON_SET = "cni-chain";
    public static final String UID = "5b6c1c9e-1d6a-4a43-9d2b-0c2f8a7e6a11";
    public static final String POD_PATH = "/api/v1/namespaces/" + NAMESPACE + "/pods/" + POD;
    public static final String DAEMON_SET_PATH = "/apis/apps/v1/namespaces/" + NAMESPACE + "/daemonsets/" + DAEMON_SET;
    public static final String NODE_PATH = "/api/v1/nodes/" + NODE;
    private static final String TOKEN = "stand-in-token";

    private final FakeApiServer server;
    private final Path serviceAccountDir;

    private StandInCluster(FakeApiServer server, Path serviceAccountDir)
    {
        this.server = server;
        this.serviceAccountDir = serviceAccountDir;
    }

    /**
     * @param serviceAccountDir where the token and the CA go
     */
    public static StandInCluster start(Path serviceAccountDir)
            throws IOException, InterruptedException, GeneralSecurityException
    {
        TestCertificates certificates = TestCertificates.shared();
        // The projected volume as the kubelet writes it, with this cluster's token and CA.
        KubeletVolume.serviceAccount(serviceAccountDir, TOKEN + "\n", Files.readString(certificates.caPem()), NAMESPACE);
        FakeApiServer server = FakeApiServer.start(certificates.server(), node(), TOKEN);
        server.put(POD_PATH, json("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + POD + "\",\"namespace\":\"" + NAMESPACE
                + "\",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"name\":\"" + DAEMON_SET + "\",\"uid\":\"" + UID
                + "\",\"controller\":true,\"blockOwnerDeletion\":true}]},\"spec\":{\"nodeName\":\"" + NODE + "\"}}"));
        server.put(DAEMON_SET_PATH, daemonSet());
        return new StandInCluster(server, serviceAccountDir);
    }

    public static ObjectNode node()
    {
        return json("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + NODE + "\",\"resourceVersion\":\"7\","
                + "\"labels\":{\"kubernetes.io/os\":\"linux\",\"kubernetes.io/hostname\":\"" + NODE + "\"}},\"spec\":{}}");
    }

    /**
     * The node as its kubelet reports it once registered: {@code status.nodeInfo.containerRuntimeVersion} is
     * {@code <runtime>://<version>} from the runtime's CRI {@code Version} answer (kubelet's {@code setters.go},
     * {@code NodeInfo}); the other nodeInfo fields are left out, the agent reads none.
     */
    public void reportRuntime(String containerRuntimeVersion)
    {
        server.changeNode(node -> node.putObject("status").putObject("nodeInfo").put("containerRuntimeVersion", containerRuntimeVersion));
    }

    public static ObjectNode daemonSet()
    {
        return json("{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"" + DAEMON_SET + "\",\"namespace\":\"" + NAMESPACE
                + "\",\"uid\":\"" + UID + "\"},\"spec\":{\"template\":{\"spec\":{\"hostNetwork\":true,"
                + "\"nodeSelector\":{\"kubernetes.io/os\":\"linux\"},\"tolerations\":[{\"operator\":\"Exists\"}]}}}}");
    }

    public FakeApiServer server()
    {
        return server;
    }

    /** The variables a pod of the DaemonSet gets: the API server's service and the downward API's. */
    public Map<String, String> environment()
    {
        return Map.of("KUBERNETES_SERVICE_HOST", "127.0.0.1", "KUBERNETES_SERVICE_PORT", server.port(), "POD_NAME", POD, "POD_NAMESPACE", NAMESPACE,
                "NODE_NAME", NODE);
    }

    public ApiServerSettings apiServer()
    {
        return new ApiServerSettings(serviceAccountDir, Optional.empty(), false, "https", Optional.of("127.0.0.1"), Optional.of(server.port()));
    }

    public static PodIdentity pod()
    {
        return new PodIdentity(NAMESPACE, POD, NODE);
    }

    /** {@code kubectl delete daemonset}: gone (background cascading deletion, the default). */
    public void deleteDaemonSet()
    {
        server.remove(DAEMON_SET_PATH);
    }

    /** Changes the DaemonSet as served from now on. */
    public void changeDaemonSet(java.util.function.Consumer<ObjectNode> change)
    {
        ObjectNode daemonSet = daemonSet();
        change.accept(daemonSet);
        server.put(DAEMON_SET_PATH, daemonSet);
    }

    /**
     * {@code kubectl delete daemonset --cascade=orphan} and the same DaemonSet applied again (how its immutable selector is
     * changed, and what a GitOps replace does): a new uid, and the DaemonSet controller adopts the running pod, whose
     * controller reference then names the new uid.
     */
    public void orphanAndReapply(String newUid)
    {
        changeDaemonSet(daemonSet -> ((ObjectNode) daemonSet.path("metadata")).put("uid", newUid));
        ObjectNode pod = (ObjectNode) server.get(POD_PATH).orElseThrow();
        ((ObjectNode) pod.path("metadata").path("ownerReferences").get(0)).put("uid", newUid);
        server.put(POD_PATH, pod);
    }

    /** The agent's ServiceAccount as the API server names it in a 403. */
    public static final String USER = "system:serviceaccount:" + NAMESPACE + ":" + DAEMON_SET;

    /**
     * The ServiceAccount is deleted: its tokens stop authenticating, every request is 401 {@code Unauthorized}
     * (service-account tokens are checked against the ServiceAccount, and a bound token against its pod, on every
     * request: Kubernetes documentation, "Managing Service Accounts", bound service account tokens).
     */
    public void deleteServiceAccount()
    {
        server.acceptToken("a token of another ServiceAccount");
    }

    /** The Role, ClusterRole and their bindings are deleted: every request is 403, worded as the API server words it. */
    public void deleteRbac()
    {
        server.forbidAll(USER);
    }

    /**
     * {@code kubectl delete -k}: the rendered order, Namespace first (which deletes the ServiceAccount, the Role and its
     * binding in it, and the DaemonSet, in no set order), then the ClusterRole and ClusterRoleBinding, the DaemonSet
     * last (already going). Here the credentials go before the DaemonSet, the harder case for the agent.
     */
    public void kubectlDeleteK()
    {
        deleteServiceAccount();
        deleteRbac();
        deleteDaemonSet();
    }

    /**
     * {@code helm uninstall}: the DaemonSet first (background cascading deletion: the object goes at once, the
     * garbage collector then deletes the pods), then, without waiting for the pods, the RBAC and the ServiceAccount
     * (Helm's uninstall order, {@code pkg/release/util/kind_sorter.go}'s UninstallOrder).
     */
    public void helmUninstall()
    {
        deleteDaemonSet();
        deleteRbac();
        deleteServiceAccount();
    }

    public static ObjectNode json(String text)
    {
        return (ObjectNode) CniJson.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close()
    {
        server.close();
    }
}
