package io.cnichain.core.fs;

import io.cnichain.core.CniChainException;
import io.cnichain.core.ErrorCode;
import io.cnichain.testkit.KubeletVolume;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodVolumeFilesTest
{
    @TempDir
    Path temp;

    @Test
    void aConfigMapFileIsReadThroughTheKubeletsLinksAndAfterAnUpdate()
    {
        KubeletVolume volume = KubeletVolume.project(temp.resolve("config"), Map.of("cni-chain.yaml", "logLevel: info\n"));
        Path file = volume.file("cni-chain.yaml");
        assertThat(Files.isSymbolicLink(file)).isTrue();
        assertThat(text(PodVolumeFiles.read(file, 1024))).isEqualTo("logLevel: info\n");

        volume.update("cni-chain.yaml", "logLevel: debug\n");
        assertThat(text(PodVolumeFiles.read(file, 1024))).isEqualTo("logLevel: debug\n");
    }

    @Test
    void aPlainFileIsReadAsItIs()
            throws IOException
    {
        Path file = Files.writeString(temp.resolve("cni-chain.yaml"), "a: 1\n");
        assertThat(text(PodVolumeFiles.read(file, 1024))).isEqualTo("a: 1\n");
    }

    @Test
    void aLinkOutOfTheVolumeIsRefusedNamingTheFileAndWhereItLeads()
            throws IOException
    {
        Path secret = Files.writeString(temp.resolve("secret"), "root's\n");
        Path volume = Files.createDirectories(temp.resolve("config"));
        Path absolute = Files.createSymbolicLink(volume.resolve("absolute.yaml"), secret);
        Path relative = Files.createSymbolicLink(volume.resolve("relative.yaml"), Path.of("../secret"));
        Files.createSymbolicLink(volume.resolve("..data"), Path.of(".."));
        Path viaData = Files.createSymbolicLink(volume.resolve("via-data.yaml"), Path.of("..data/secret"));

        assertThatThrownBy(() -> PodVolumeFiles.read(absolute, 1024)).isInstanceOf(CniChainException.class)
                .hasMessage(absolute + ": leads through " + absolute + " to " + secret + ", outside " + volume
                        + "; only links that stay in the file's own directory (as the kubelet writes a volume) are followed");
        for (Path file : new Path[] {relative, viaData}) {
            assertThatThrownBy(() -> PodVolumeFiles.read(file, 1024)).isInstanceOf(CniChainException.class)
                    .hasMessageStartingWith(file + ": leads outside " + volume);
        }
    }

    @Test
    void aFifoBehindTheLinksIsRefusedAtOnce()
            throws Exception
    {
        Path volume = Files.createDirectories(temp.resolve("serviceaccount"));
        Path data = Files.createDirectories(volume.resolve("..2026_12_03_07_00_00.1"));
        Process mkfifo = new ProcessBuilder("mkfifo", data.resolve("token").toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).isTrue();
        Files.createSymbolicLink(volume.resolve("..data"), data.getFileName());
        Path token = Files.createSymbolicLink(volume.resolve("token"), Path.of("..data/token"));

        assertThatThrownBy(() -> PodVolumeFiles.read(token, 1024)).isInstanceOf(CniChainException.class)
                .hasMessage(token + ": is a FIFO, not a regular file (reached through links at " + data.resolve("token") + ")");
    }

    @Test
    void missingLoopingAndTooLargeAreErrorsNamingTheFile()
            throws IOException
    {
        Path volume = Files.createDirectories(temp.resolve("v"));
        Path missing = Files.createSymbolicLink(volume.resolve("missing"), Path.of("..data/missing"));
        Files.createSymbolicLink(volume.resolve("..data"), Path.of("..data"));
        Path loop = Files.createSymbolicLink(volume.resolve("loop"), Path.of("loop"));
        Path large = Files.writeString(volume.resolve("large"), "x".repeat(2048));

        assertThatThrownBy(() -> PodVolumeFiles.read(missing, 1024)).hasMessageStartingWith(missing + ": has more than 40 links");
        assertThatThrownBy(() -> PodVolumeFiles.read(loop, 1024)).hasMessageStartingWith(loop + ": has more than 40 links");
        assertThatThrownBy(() -> PodVolumeFiles.read(volume.resolve("none"), 1024)).hasMessage(volume.resolve("none") + ": does not exist");
        assertThatThrownBy(() -> PodVolumeFiles.read(large, 1024)).isInstanceOf(CniChainException.class)
                .satisfies(e -> assertThat(((CniChainException) e).code()).isEqualTo(ErrorCode.TOO_LARGE));
    }

    private static String text(byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
