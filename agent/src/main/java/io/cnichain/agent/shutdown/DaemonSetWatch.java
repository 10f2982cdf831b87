package io.cnichain.agent.shutdown;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.config.PodIdentity;
import io.cnichain.agent.kube.ApiCallException;
import io.cnichain.agent.kube.KubeApiClient;
import io.cnichain.agent.kube.KubeApiClient.Hint;
import io.cnichain.agent.shutdown.ShutdownDecision.Reason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Watches the agent's own DaemonSet while the agent runs, so that the decision at SIGTERM does not depend on
 * credentials that an uninstall takes away. An uninstall deletes the DaemonSet and, in an order of its own, the
 * ServiceAccount and the RBAC: {@code kubectl delete -k} deletes the Namespace first and the DaemonSet last,
 * {@code helm uninstall} the DaemonSet first and then the rest without waiting for the pods. A watch opened while the
 * credentials were good goes on delivering events after they are revoked (the API server checks a request when it
 * starts), so the deletion is seen even when no call can be made any more at SIGTERM.
 *
 * <p>What it sees is only ever a reason to clean up: the DaemonSet deleted, being deleted, or replaced by another of
 * the same name. Anything else is decided at SIGTERM, by {@link ShutdownDecider}, from a fresh look.
 *
 * <p>It finds its DaemonSet from its pod's controller, reads it, then watches it by name
 * ({@code fieldSelector=metadata.name=NAME}, which the Role's {@code list} and {@code watch} on daemonsets in the
 * namespace allow) from the version read. A watch the server ends is opened again from the last version seen; a
 * version too old (410 Gone) means reading it again. Failures wait, doubling from 1 s to 60 s.
 */
public final class DaemonSetWatch
        implements AutoCloseable
{
    private static final Logger log = LoggerFactory.getLogger(DaemonSetWatch.class);
    /** The server ends each watch after this long; a new one starts from the last version seen. */
    static final int WATCH_SECONDS = 300;
    private static final Duration MIN_PAUSE = Duration.ofSeconds(1);
    private static final Duration MAX_PAUSE = Duration.ofSeconds(60);

    private final KubeApiClient client;
    private final PodIdentity self;
    private final Thread thread;
    private volatile Optional<ShutdownDecision> uninstall = Optional.empty();
    private volatile boolean watching;
    private volatile boolean closed;

    /**
     * @param client the API client (its token and CA are read for every call)
     * @param self   the agent's pod and node
     */
    public DaemonSetWatch(KubeApiClient client, PodIdentity self)
    {
        this.client = requireNonNull(client, "client is null");
        this.self = requireNonNull(self, "self is null");
        this.thread = new Thread(this::run, "daemonset-watch");
        thread.setDaemon(true);
    }

    public DaemonSetWatch start()
    {
        thread.start();
        return this;
    }

    /** @return the uninstall seen so far: the DaemonSet deleted, being deleted or replaced; empty when none was */
    public Optional<ShutdownDecision> uninstallSeen()
    {
        return uninstall;
    }

    /** @return whether a watch is open now: the server accepted it (for tests) */
    public boolean watching()
    {
        return watching;
    }

    @Override
    public void close()
    {
        closed = true;
        thread.interrupt();
    }

    private void run()
    {
        Duration pause = MIN_PAUSE;
        Optional<Owner> owner = Optional.empty();
        String version = "";
        while (!closed && uninstall.isEmpty()) {
            try {
                if (owner.isEmpty()) {
                    owner = owner();
                    if (owner.isEmpty()) {
                        return;
                    }
                }
                if (version.isEmpty()) {
                    version = read(owner.get());
                    if (uninstall.isPresent()) {
                        return;
                    }
                }
                version = watch(owner.get(), version);
                pause = MIN_PAUSE;
            }
            catch (ApiCallException e) {
                log.debug("Watching the agent's DaemonSet: {}; again in {} s", e.getMessage(), pause.toSeconds());
                try {
                    Thread.sleep(pause.toMillis());
                }
                catch (InterruptedException interrupted) {
                    return;
                }
                Duration doubled = pause.plus(pause);
                pause = doubled.compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : doubled;
            }
            catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The pod's controller; empty when it has no DaemonSet (nothing to watch: the decision at SIGTERM says so). */
    private Optional<Owner> owner()
            throws ApiCallException, InterruptedException
    {
        String path = "/api/v1/namespaces/" + self.namespace() + "/pods/" + self.pod();
        JsonNode pod = client.get(path, new Hint(" (the agent's Role must allow get on pods in namespace " + self.namespace() + ")", ""));
        for (JsonNode reference : pod.path("metadata").path("ownerReferences")) {
            if (reference.path("controller").asBoolean(false) && reference.path("kind").asText().equals("DaemonSet")) {
                return Optional.of(new Owner(reference.path("name").asText(), reference.path("uid").asText()));
            }
        }
        return Optional.empty();
    }

    /** @return the DaemonSet's resourceVersion, after noting what it shows */
    private String read(Owner owner)
            throws ApiCallException, InterruptedException
    {
        Optional<JsonNode> daemonSet = client.find("/apis/apps/v1/namespaces/" + self.namespace() + "/daemonsets/" + owner.name(),
                new Hint(" (the agent's Role must allow get on daemonsets in namespace " + self.namespace() + ")", ""));
        if (daemonSet.isEmpty()) {
            seen(ShutdownDecision.cleanUp(Reason.DAEMONSET_GONE, owner.describe(self) + " is gone: an uninstall"));
            return "";
        }
        note(owner, daemonSet.get());
        return daemonSet.get().path("metadata").path("resourceVersion").asText();
    }

    /** @return the last version seen, to watch on from; empty when it must be read again */
    private String watch(Owner owner, String from)
            throws ApiCallException, InterruptedException
    {
        String path = "/apis/apps/v1/namespaces/" + self.namespace() + "/daemonsets?watch=true&allowWatchBookmarks=true&timeoutSeconds=" + WATCH_SECONDS
                + "&resourceVersion=" + URLEncoder.encode(from, StandardCharsets.UTF_8)
                + "&fieldSelector=" + URLEncoder.encode("metadata.name=" + owner.name(), StandardCharsets.UTF_8);
        String[] version = {from};
        try {
            client.watch(path, new Hint(" (the agent's Role must allow list and watch on daemonsets in namespace " + self.namespace() + ")", ""),
                    Duration.ofSeconds(WATCH_SECONDS + 30), () -> watching = true, event -> {
                        String type = event.path("type").asText();
                        JsonNode object = event.path("object");
                        switch (type) {
                            case "DELETED" -> seen(ShutdownDecision.cleanUp(Reason.DAEMONSET_GONE, owner.describe(self) + " was deleted: an uninstall"));
                            case "ADDED", "MODIFIED" -> note(owner, object);
                            case "ERROR" -> {
                                // 410 Gone: the version is too old to watch from; read the object again.
                                version[0] = "";
                                return false;
                            }
                            default -> {
                                // BOOKMARK: only a newer version to watch from
                            }
                        }
                        String seenVersion = object.path("metadata").path("resourceVersion").asText();
                        if (!type.equals("ERROR") && !seenVersion.isEmpty()) {
                            version[0] = seenVersion;
                        }
                        return uninstall.isEmpty() && !closed;
                    });
        }
        finally {
            watching = false;
        }
        return version[0];
    }

    private void note(Owner owner, JsonNode daemonSet)
    {
        JsonNode metadata = daemonSet.path("metadata");
        if (!metadata.path("uid").asText().equals(owner.uid())) {
            seen(ShutdownDecision.cleanUp(Reason.DAEMONSET_REPLACED, owner.describe(self) + " now has uid " + metadata.path("uid").asText()
                    + ", not " + owner.uid() + " which made this pod: the one that did was deleted"));
        }
        else if (metadata.hasNonNull("deletionTimestamp")) {
            seen(ShutdownDecision.cleanUp(Reason.DAEMONSET_DELETING, owner.describe(self) + " is being deleted (deletionTimestamp "
                    + metadata.path("deletionTimestamp").asText() + "): an uninstall"));
        }
    }

    private void seen(ShutdownDecision decision)
    {
        if (uninstall.isEmpty()) {
            uninstall = Optional.of(decision);
            log.info("Seen while running: {}; a stop will remove what this agent installed", decision.detail());
        }
    }

    private record Owner(String name, String uid)
    {
        String describe(PodIdentity self)
        {
            return "DaemonSet " + self.namespace() + "/" + name;
        }
    }
}
