package io.cnichain.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Gives every test a fresh {@link TestNode} in a temp directory of its own, removed after the test. Declare a
 * {@code TestNode} parameter on the test method, or on a {@code @BeforeEach} method: within one test both get the
 * same node.
 *
 * <pre>{@code
 * @ExtendWith(TempNodeExtension.class)
 * class MyAdapterTest
 * {
 *     @Test
 *     void patchesMyPlatformsFile(TestNode node)
 *     {
 *         node.write("10-my.conflist", "{...}");
 *         ...
 *     }
 * }
 * }</pre>
 *
 * Set {@code -Dtestkit.keep=true} to keep the directories (their paths are in each node's {@link TestNode#root()}).
 */
public final class TempNodeExtension
        implements ParameterResolver
{
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TempNodeExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context)
    {
        return parameter.getParameter().getType() == TestNode.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context)
    {
        return context.getStore(NAMESPACE).getOrComputeIfAbsent("node", key -> NodeDirectory.create(), NodeDirectory.class).node();
    }

    /** The node and its directory, deleted when the test's store closes. */
    private record NodeDirectory(TestNode node)
            implements AutoCloseable
    {
        static NodeDirectory create()
        {
            try {
                return new NodeDirectory(TestNode.create(Files.createTempDirectory("cni-chain-node-")));
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close()
                throws IOException
        {
            if (Boolean.getBoolean("testkit.keep")) {
                return;
            }
            // Files.walk does not follow links: a link pointing out of the node never takes its target with it.
            try (Stream<Path> walk = Files.walk(node.root())) {
                for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }
}
