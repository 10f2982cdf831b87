package io.cnichain.agent.kube;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Collection;

/**
 * A TLS context that trusts the certificates of one PEM file and nothing else (not the JDK's CAs), built in memory.
 * Host names are checked by the HTTP client, for https.
 */
public final class TrustedCa
{
    private TrustedCa() {}

    /**
     * @param pem  the CA file's content: one or more PEM certificates
     * @param file the CA file, for errors
     * @return a context trusting exactly those certificates
     * @throws ApiCallException when the file holds no certificate
     */
    public static SSLContext sslContext(byte[] pem, Path file)
            throws ApiCallException
    {
        Collection<? extends Certificate> certificates;
        try {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
        }
        catch (CertificateException e) {
            throw notACa(file, e.getMessage());
        }
        if (certificates.isEmpty()) {
            throw notACa(file, "no certificate found");
        }
        try {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            int n = 0;
            for (Certificate certificate : certificates) {
                trusted.setCertificateEntry("ca-" + n++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        }
        catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("the JDK cannot build a TLS context: " + e, e);
        }
    }

    private static ApiCallException notACa(Path file, String reason)
    {
        return new ApiCallException("CA", file + ": not a PEM CA certificate (" + reason + "); no request sent");
    }
}
