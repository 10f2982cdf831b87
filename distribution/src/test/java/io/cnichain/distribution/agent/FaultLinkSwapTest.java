package io.cnichain.distribution.agent;

import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.cnichain.testkit.PluginList.plugins;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Time of check to time of use: while the agent patches through a link, a thread re-points it as fast as it can
 * between the primary's file (inside the allowed roots, {@code /etc/cni}) and a file outside them. Whatever the
 * timing, nothing is ever written outside: the outside file keeps its bytes, inode and modification time.
 */
@Tag("reliability")
@ExtendWith(TempNodeExtension.class)
class FaultLinkSwapTest
{
    @Test
    void aLinkRepointedOutsideTheAllowedRootsBetweenCheckAndWriteNeverLeadsAWriteThere(TestNode node)
            throws Exception
    {
        Path inside = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        Path outside = node.writeAt(node.host("/etc/outside/10-oci.conflist"), TestNode.OCI);
        node.link("10-oci.conflist", "../oci/10-oci.conflist-current");
        Snapshot before = Snapshot.of(outside);
        try (Cleanup cleanup = new Cleanup()) {
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            Files2.awaitPatched(agent, inside);
            Flipper flipper = cleanup.add(new Flipper(() -> {
                node.relink("10-oci.conflist", "/etc/outside/10-oci.conflist");
                node.relink("10-oci.conflist", "../oci/10-oci.conflist-current");
            }));
            // While it flips, the primary keeps rewriting the inside file, so that there is always something to patch.
            long end = System.nanoTime() + Duration.ofSeconds(FaultSettings.soak() ? 30 : 3).toNanos();
            long rewrites = 0;
            while (System.nanoTime() < end) {
                node.replaceAtomicallyAt(inside, TestNode.OCI);
                rewrites++;
                Snapshot.of(outside).assertSameAs(before);
                Files2.pause(20);
            }
            flipper.close();
            node.relink("10-oci.conflist", "../oci/10-oci.conflist-current");
            Files2.awaitPatched(agent, inside);
            Barrier.await(agent, node);
            Snapshot.of(outside).assertSameAs(before);
            assertThat(plugins(outside)).containsExactly("oci-ipvlan", "oci-ptp");
            long refused = agent.count("outside the allowed roots");
            FaultSettings.report("link swapped (conf dir)", flipper.flips() + " flips in " + rewrites + " rewrites of the primary; "
                    + agent.writes("/etc/cni/oci/10-oci.conflist-current") + " writes of ours, all inside; " + refused
                    + " lines refusing the outside target; the outside file untouched");
            assertThat(agent.writes("")).isGreaterThan(1);
        }
    }

    /**
     * A harder swap: not the link in the conf dir but a directory on the resolved path, replaced by a link out of the
     * allowed roots between the resolver's walk and the write.
     */
    @Test
    void aDirectoryOnTheResolvedPathSwappedForALinkOutsideNeverLeadsAWriteThere(TestNode node)
            throws Exception
    {
        Path inside = node.writeAt(node.host("/etc/cni/oci/10-oci.conflist-current"), TestNode.OCI);
        Path outside = node.writeAt(node.host("/etc/outside/10-oci.conflist-current"), TestNode.OCI);
        node.link("10-oci.conflist", "/etc/cni/oci/10-oci.conflist-current");
        Path directory = inside.getParent();
        Path away = directory.resolveSibling("oci.away");
        Path swapLink = directory.resolveSibling(".oci.swap");
        Snapshot before = Snapshot.of(outside);
        try (Cleanup cleanup = new Cleanup()) {
            AgentProcess agent = cleanup.add(AgentProcess.start(node, "--log-level", "debug"));
            Files2.awaitPatched(agent, inside);
            // The primary rewrites its file through a handle on the real directory, wherever that is just now: never
            // through the link, which would be the test writing outside.
            @SuppressWarnings("unchecked")
            SecureDirectoryStream<Path> real = cleanup.add((SecureDirectoryStream<Path>) Files.newDirectoryStream(directory));
            cleanup.undo(() -> {
                if (Files.isSymbolicLink(directory)) {
                    Files.delete(directory);
                }
                if (Files.isDirectory(away)) {
                    Files.move(away, directory);
                }
            });
            long seed = FaultSettings.seed();
            java.util.Random random = new java.util.Random(seed);
            // Each state held a few milliseconds at random: long enough to span a write (temp file, fsync, rename), short
            // enough to fall between the resolver's walk and the write.
            Flipper flipper = cleanup.add(new Flipper(() -> {
                Files.move(directory, away, StandardCopyOption.ATOMIC_MOVE);
                // Relative, so that the kernel (following it in the test's node) and the resolver (on host paths) agree.
                Files.createSymbolicLink(swapLink, Path.of("../outside"));
                Files.move(swapLink, directory, StandardCopyOption.ATOMIC_MOVE);
                java.util.concurrent.locks.LockSupport.parkNanos(random.nextInt(6_000_000));
                Files.delete(directory);
                Files.move(away, directory, StandardCopyOption.ATOMIC_MOVE);
                java.util.concurrent.locks.LockSupport.parkNanos(random.nextInt(3_000_000));
            }));
            long end = System.nanoTime() + Duration.ofSeconds(FaultSettings.soak() ? 30 : 3).toNanos();
            long rewrites = 0;
            while (System.nanoTime() < end) {
                Path temp = Path.of(".primary-tmp");
                try (SeekableByteChannel channel = real.newByteChannel(temp, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS))) {
                    channel.write(ByteBuffer.wrap(TestNode.OCI.getBytes(StandardCharsets.UTF_8)));
                }
                real.move(temp, real, inside.getFileName());
                // And the link touched, so that the agent takes a fresh look each time: more tries to catch the swap in.
                node.relink("10-oci.conflist", "/etc/cni/oci/10-oci.conflist-current");
                rewrites++;
                Snapshot.of(outside).assertSameAs(before);
                Files2.pause(5);
            }
            flipper.close();
            long calm = System.nanoTime();
            // The directory is back for good: the agent, watching where the link points, patches the file there.
            Files2.awaitPatched(agent, inside);
            long backAfter = Duration.ofNanos(System.nanoTime() - calm).toMillis();
            Barrier.await(agent, node);
            Snapshot.of(outside).assertSameAs(before);
            FaultSettings.report("directory swapped for a link", flipper.flips() + " swaps (seed " + seed + "), " + rewrites + " rewrites of the primary, "
                    + agent.writes("/etc/cni/oci/10-oci.conflist-current") + " writes of ours, " + agent.count("became a link")
                    + " refused because a directory on the way had become a link, " + agent.count("writing our entry again before the back-off ends")
                    + " early writes in the fight; our entry back " + backAfter + " ms after the swaps ended; the outside file untouched");
        }
    }

    /** Bytes, inode and modification time of a file. */
    private record Snapshot(byte[] bytes, Object inode, long modifiedNanos)
    {
        static Snapshot of(Path file)
                throws IOException
        {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return new Snapshot(Files.readAllBytes(file), Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS),
                    attributes.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS));
        }

        void assertSameAs(Snapshot before)
        {
            assertThat(Arrays.equals(bytes, before.bytes)).as("the outside file's bytes: " + new String(bytes)).isTrue();
            assertThat(inode).as("the outside file's inode").isEqualTo(before.inode);
            assertThat(modifiedNanos).as("the outside file's modification time").isEqualTo(before.modifiedNanos);
        }
    }

    /** Runs one flip after another on a thread of its own until closed. */
    private static final class Flipper
            implements AutoCloseable
    {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong flips = new AtomicLong();
        private final Thread thread;
        private volatile Throwable failure;

        Flipper(Cleanup.Undo flip)
        {
            thread = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        flip.run();
                        flips.incrementAndGet();
                    }
                }
                catch (Throwable t) {
                    failure = t;
                }
            }, "flipper");
            thread.setDaemon(true);
            thread.start();
        }

        long flips()
        {
            return flips.get();
        }

        @Override
        public void close()
                throws InterruptedException
        {
            stop.set(true);
            thread.join(5000);
            if (failure != null) {
                throw new AssertionError("the flipper failed", failure);
            }
        }
    }
}
