package io.cnichain.core.install;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.core.config.ApiServerSettings;
import io.cnichain.core.config.KubeconfigSettings;
import io.cnichain.core.fs.AtomicFileWriter;
import io.cnichain.core.fs.FileMode;
import io.cnichain.core.fs.PodVolumeFiles;
import io.cnichain.core.host.HostPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Keeps the chained plugin's kubeconfig in the configuration directory: token and CA from the service
 * account, server from the Kubernetes service environment. Written atomically, with its mode, and only
 * when its content changes (a rewrite would wake every watcher of the directory for nothing).
 */
public final class KubeconfigWriter
{
    private static final Logger log = LoggerFactory.getLogger(KubeconfigWriter.class);
    /**
     * The first lines that make a kubeconfig ours to take over: ours and the shell installer's (the same), and Linkerd's
     * Go installer's ({@code internal/cni}'s template), which a switch from linkerd2-cni finds in place.
     */
    private static final List<byte[]> KNOWN_HEADERS = List.of(KubeconfigRenderer.HEADER.getBytes(StandardCharsets.UTF_8),
            "# kubeconfig file for linkerd.io/cni-plugin\n".getBytes(StandardCharsets.UTF_8));
    private static final int LONGEST_HEADER = KNOWN_HEADERS.stream().mapToInt(header -> header.length).max().orElseThrow();
    /** A token or a CA bundle is a few kilobytes. */
    private static final long MAX_POD_FILE_BYTES = 1024 * 1024;

    private final HostPaths host;
    private final KubeconfigSettings settings;
    private final ApiServerSettings api;
    private final Path hostPath;
    private final AtomicFileWriter writer;

    /**
     * @param host              the host mount
     * @param settings the kubeconfig file's settings
     * @param api      where the API server is, and the service account's token and CA
     * @param hostPath host path of the kubeconfig
     * @param writer   the writer
     */
    public KubeconfigWriter(HostPaths host, KubeconfigSettings settings, ApiServerSettings api, Path hostPath, AtomicFileWriter writer)
    {
        this.host = requireNonNull(host, "host is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.api = requireNonNull(api, "api is null");
        this.hostPath = requireNonNull(hostPath, "hostPath is null");
        this.writer = requireNonNull(writer, "writer is null");
    }

    public Path hostPath()
    {
        return hostPath;
    }

    /**
     * Writes the kubeconfig when it is missing or differs from what it should be.
     *
     * @return whether it was written
     * @throws CniChainException {@link ErrorCode#KUBECONFIG} when the token, CA or server is missing
     */
    public boolean ensure()
    {
        KubeconfigRenderer.Rendered rendered = render();
        byte[] content = rendered.full().getBytes(StandardCharsets.UTF_8);
        Path file = host.toContainer(hostPath);
        Optional<String> theirs = notOurs(file);
        if (theirs.isPresent()) {
            throw new CniChainException(ErrorCode.KUBECONFIG, hostPath, theirs.get() + ": refusing to replace it; name another file "
                    + "(kubeconfig.fileName, KUBECONFIG_FILE_NAME)");
        }
        String why;
        try {
            // Read as notOurs read it: something swapped in since (a FIFO, a link to a huge file) neither blocks nor is followed.
            if (!Arrays.equals(io.cnichain.core.fs.linux.FileSystemCalls.get().readRegularFile(file, content.length), content)) {
                why = "it did not hold the current token, CA and server";
            }
            else if (!Files.getPosixFilePermissions(file, java.nio.file.LinkOption.NOFOLLOW_LINKS).equals(settings.mode())) {
                why = "its mode was not " + PosixFilePermissions.toString(settings.mode());
            }
            else {
                return false;
            }
        }
        catch (NoSuchFileException e) {
            why = "it was missing";
        }
        catch (IOException e) {
            throw new CniChainException(ErrorCode.KUBECONFIG, hostPath, "cannot be read: " + e.getMessage(), e);
        }
        writer.write(file, hostPath, content, FileMode.exactly(settings.mode()), Optional.empty());
        log.info("Wrote kubeconfig {}: {}", hostPath, why);
        log.debug("kubeconfig content:\n{}", rendered.redacted());
        return true;
    }

    /**
     * @return whether the kubeconfig was there to remove
     */
    public boolean remove()
    {
        Path file = host.toContainer(hostPath);
        Optional<String> theirs = notOurs(file);
        if (theirs.isPresent()) {
            throw new CniChainException(ErrorCode.KUBECONFIG, hostPath, theirs.get() + ": left in place");
        }
        return writer.delete(file, hostPath);
    }

    /**
     * Only a file we (or one of Linkerd's installers, whose kubeconfig we take over) wrote is ours to replace or remove:
     * a regular file that starts with one of their headers. Another tool's file of that name (a typo in the name, or a
     * name taken from another tool) is never touched.
     *
     * @return why the file there is not ours; empty when it is, or when there is none
     */
    private static Optional<String> notOurs(Path file)
    {
        byte[] head;
        try {
            head = io.cnichain.core.fs.linux.FileSystemCalls.get().readRegularFile(file, LONGEST_HEADER);
        }
        catch (NoSuchFileException e) {
            return Optional.empty();
        }
        catch (io.cnichain.core.fs.linux.FileSystemCalls.NotRegularFile e) {
            return Optional.of("is " + e.kind() + ", not the kubeconfig cni-chain writes");
        }
        catch (IOException e) {
            return Optional.of("cannot be read (" + e.getMessage() + "), so it cannot be told to be ours");
        }
        byte[] first = head;
        if (KNOWN_HEADERS.stream().noneMatch(header -> first.length >= header.length && Arrays.equals(Arrays.copyOf(first, header.length), header))) {
            return Optional.of("exists and was not written by cni-chain or Linkerd's installers (it does not start with '"
                    + new String(KNOWN_HEADERS.get(0), StandardCharsets.UTF_8).strip() + "' or '"
                    + new String(KNOWN_HEADERS.get(1), StandardCharsets.UTF_8).strip() + "')");
        }
        return Optional.empty();
    }

    /**
     * @return whether the kubeconfig exists
     */
    public boolean exists()
    {
        return Files.isRegularFile(host.toContainer(hostPath), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /** @return whether anything (a file, a link, ...) is at the kubeconfig's path */
    public boolean present()
    {
        return Files.exists(host.toContainer(hostPath), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * @return the kubeconfig as it should be
     * @throws CniChainException {@link ErrorCode#KUBECONFIG} when the token, CA or server is missing
     */
    public KubeconfigRenderer.Rendered render()
    {
        // The token requested for the plugin's account appears once the agent has it; until then there is no kubeconfig.
        Path tokenFile = settings.tokenFile(api);
        if (settings.serviceAccount().isPresent() && !Files.exists(tokenFile)) {
            throw new CniChainException(ErrorCode.NOT_YET, "waiting for the plugin's token, which the agent requests for service account "
                    + settings.serviceAccount().get() + ": no kubeconfig, and so no entry, until it has one");
        }
        String token = readText(tokenFile, "the service-account token").trim();
        if (token.isEmpty()) {
            throw new CniChainException(ErrorCode.KUBECONFIG, tokenFile, "the service-account token is empty");
        }
        if (!printable(token)) {
            throw new CniChainException(ErrorCode.KUBECONFIG, tokenFile, "the service-account token holds characters a token never has");
        }
        Optional<byte[]> ca = Optional.empty();
        if (!api.skipTlsVerify()) {
            ca = Optional.of(readText(api.effectiveCaFile(), "the CA certificate (set KUBE_CA_FILE, or SKIP_TLS_VERIFY=true)").getBytes(StandardCharsets.UTF_8));
        }
        if (api.host().isEmpty()) {
            throw new CniChainException(ErrorCode.KUBECONFIG, "KUBERNETES_SERVICE_HOST not set: cannot write the kubeconfig for the chained plugin");
        }
        if (api.port().isEmpty()) {
            throw new CniChainException(ErrorCode.KUBECONFIG, "KUBERNETES_SERVICE_PORT not set: cannot write the kubeconfig for the chained plugin");
        }
        return KubeconfigRenderer.render(KubeconfigRenderer.serverUrl(api.protocol(), api.host().get(), api.port().get()), token, ca);
    }

    /** @return whether it holds only printable ASCII, no blank */
    private static boolean printable(String token)
    {
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    /** A file of a pod volume (the token, the CA), as {@link PodVolumeFiles} reads it. */
    private static String readText(Path file, String what)
    {
        try {
            return new String(PodVolumeFiles.read(file, MAX_POD_FILE_BYTES), StandardCharsets.UTF_8);
        }
        catch (CniChainException e) {
            throw new CniChainException(ErrorCode.KUBECONFIG, file, what + " " + e.reason(), e);
        }
    }
}
