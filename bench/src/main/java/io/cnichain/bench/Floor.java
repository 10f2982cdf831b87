package io.cnichain.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The floor: the least a JVM program can do for the agent's main job, to measure the agent against. It watches the
 * conf dir, and on any event that is not a hidden file's (primaries write hidden temp files) checks every
 * {@code .conflist} it knows (found at start or created since), links followed, and appends the entry by string
 * surgery before the last {@code ]} when the file does not name {@code linkerd-cni}; written with the agent's
 * durability: temp file in the same directory, fsync, atomic rename, fsync of the directory. No parsing, no
 * adapters, no health server, no logging beyond one line per write, no cleanup. Run with the launcher's JVM options:
 *
 * <pre>java OPTIONS -cp cni-chain-bench.jar io.cnichain.bench.Floor CONF_DIR</pre>
 */
public final class Floor
{
    /** The entry cni-chain writes by default, byte for byte the same size. */
    static final String ENTRY = """
            ,
                {
                  "name": "linkerd-cni",
                  "type": "linkerd-cni",
                  "log_level": "info",
                  "kubernetes": {
                    "kubeconfig": "/etc/cni/net.d/ZZZ-linkerd-cni-kubeconfig"
                  },
                  "linkerd": {
                    "incoming-proxy-port": 4143,
                    "outgoing-proxy-port": 4140,
                    "proxy-uid": 2102,
                    "ports-to-redirect": [],
                    "inbound-ports-to-ignore": [
                      "4191",
                      "4190"
                    ],
                    "simulate": false,
                    "use-wait-flag": false,
                    "iptables-mode": "nft",
                    "ipv6": false
                  }
                }
            """;

    private final Path confDir;
    private final Set<String> lists = new LinkedHashSet<>();

    private Floor(Path confDir)
    {
        this.confDir = confDir;
    }

    public static void main(String[] args)
            throws IOException, InterruptedException
    {
        new Floor(Path.of(args[0])).run();
    }

    private void run()
            throws IOException, InterruptedException
    {
        WatchService watcher = FileSystems.getDefault().newWatchService();
        confDir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(confDir, "*.conflist")) {
            entries.forEach(entry -> lists.add(entry.getFileName().toString()));
        }
        patchAll();
        while (true) {
            WatchKey key = watcher.take();
            boolean relevant = false;
            for (WatchEvent<?> event : key.pollEvents()) {
                if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                    relevant = true;
                    continue;
                }
                String name = event.context().toString();
                if (!name.startsWith(".")) {
                    relevant = true;
                    if (name.endsWith(".conflist")) {
                        lists.add(name);
                    }
                }
            }
            key.reset();
            if (relevant) {
                patchAll();
            }
        }
    }

    private void patchAll()
    {
        for (String name : lists) {
            try {
                patch(confDir.resolve(name).toRealPath());
            }
            catch (IOException e) {
                // gone, or mid-write: the next event brings it back
            }
        }
    }

    private static void patch(Path file)
            throws IOException
    {
        String text = Files.readString(file);
        int end = text.lastIndexOf(']');
        if (text.contains("\"linkerd-cni\"") || end < 0) {
            return;
        }
        int last = end - 1;
        while (last > 0 && Character.isWhitespace(text.charAt(last))) {
            last--;
        }
        String patched = text.substring(0, last + 1) + ENTRY.stripTrailing() + "\n  " + text.substring(end);
        Path dir = file.getParent();
        Path temp = dir.resolve("." + file.getFileName() + ".floor-tmp");
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = ByteBuffer.wrap(patched.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
            directory.force(true);
        }
        System.out.println("patched " + file);
    }
}
