package io.cnichain.agent.kube;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Certificates made at test time by the JDK's {@code keytool}, run as a process (no BouncyCastle): a test CA; a server
 * certificate it signed for {@code 127.0.0.1} and {@code localhost}; one it signed for another name; and a second CA
 * that signed nothing of the server's. Independent keytool runs go in parallel (each is a JVM start).
 *
 * @param caPem                the CA the API server's certificates chain to (the service account's {@code ca.crt})
 * @param otherCaPem           a CA unrelated to the server
 * @param server               TLS for a server at 127.0.0.1
 * @param serverForAnotherName TLS for a server whose certificate, signed by the CA, names only {@code elsewhere.invalid}
 */
public record TestCertificates(Path caPem, Path otherCaPem, SSLContext server, SSLContext serverForAnotherName)
{
    private static final String PASSWORD = "changeit";
    // Fast keytool runs: tiny PKCS12 iteration counts (test keys), and a JVM that does not bother compiling much.
    private static final List<String> FAST = List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC",
            "-J-Dkeystore.pkcs12.macIterationCount=1", "-J-Dkeystore.pkcs12.certPbeIterationCount=1", "-J-Dkeystore.pkcs12.keyPbeIterationCount=1");

    private static TestCertificates shared;

    /** One set for every test class of the JVM (keytool takes seconds), in a directory removed when the JVM exits. */
    public static synchronized TestCertificates shared()
            throws IOException, InterruptedException, GeneralSecurityException
    {
        if (shared == null) {
            Path dir = Files.createTempDirectory("cni-chain-test-ca");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
                }
                catch (IOException e) {
                    // a temporary directory left behind
                }
            }));
            shared = generate(dir);
        }
        return shared;
    }

    public static TestCertificates generate(Path dir)
            throws IOException, InterruptedException, GeneralSecurityException
    {
        keytool(dir,
                List.of("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=cni-chain test CA", "-ext", "bc:c",
                        "-validity", "2", "-keystore", "ca.p12"),
                List.of("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=unrelated CA", "-ext", "bc:c",
                        "-validity", "2", "-keystore", "other-ca.p12"),
                List.of("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=kube-apiserver",
                        "-validity", "2", "-keystore", "server.p12"));
        keytool(dir,
                List.of("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-file", "ca.crt"),
                List.of("-exportcert", "-rfc", "-alias", "ca", "-keystore", "other-ca.p12", "-file", "other-ca.crt"),
                List.of("-certreq", "-alias", "server", "-keystore", "server.p12", "-file", "server.csr"));
        keytool(dir,
                List.of("-gencert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-infile", "server.csr", "-outfile", "server.crt", "-validity", "2",
                        "-ext", "san=ip:127.0.0.1,dns:localhost", "-ext", "eku=serverAuth"),
                List.of("-gencert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-infile", "server.csr", "-outfile", "elsewhere.crt",
                        "-validity", "2", "-ext", "san=dns:elsewhere.invalid", "-ext", "eku=serverAuth"));
        KeyStore generated = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            generated.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) generated.getKey("server", PASSWORD.toCharArray());
        Certificate ca = certificate(dir.resolve("ca.crt"));
        return new TestCertificates(dir.resolve("ca.crt"), dir.resolve("other-ca.crt"),
                serverTls(key, certificate(dir.resolve("server.crt")), ca), serverTls(key, certificate(dir.resolve("elsewhere.crt")), ca));
    }

    /** Runs the given keytool commands at the same time, in {@code dir}; fails with keytool's output if one fails. */
    @SafeVarargs
    private static void keytool(Path dir, List<String>... commands)
            throws IOException, InterruptedException
    {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (List<String> command : commands) {
            List<String> line = new ArrayList<>(List.of(keytool.toString()));
            line.addAll(FAST);
            line.addAll(command);
            line.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-noprompt"));
            Path log = Files.createTempFile(dir, "keytool", ".log");
            logs.add(log);
            processes.add(new ProcessBuilder(line).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start());
        }
        for (int i = 0; i < processes.size(); i++) {
            if (processes.get(i).waitFor() != 0) {
                throw new IllegalStateException("keytool " + commands[i] + " failed:\n" + Files.readString(logs.get(i)));
            }
        }
    }

    private static Certificate certificate(Path pem)
            throws IOException, GeneralSecurityException
    {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static SSLContext serverTls(PrivateKey key, Certificate certificate, Certificate ca)
            throws IOException, GeneralSecurityException
    {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("server", key, PASSWORD.toCharArray(), new Certificate[] {certificate, ca});
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }
}
