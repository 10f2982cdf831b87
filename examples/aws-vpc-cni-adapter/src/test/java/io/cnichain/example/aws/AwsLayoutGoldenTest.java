package io.cnichain.example.aws;

import io.cnichain.core.engine.FileOutcome;
import io.cnichain.testkit.NodeGolden;
import io.cnichain.testkit.TempNodeExtension;
import io.cnichain.testkit.TestNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * AWS node layouts run through the real engine, as the agent runs it (detect, install, uninstall), with the adapter
 * pinned; every step is compared with {@code src/test/resources/golden/aws/<layout>/<step>.golden}. After a change,
 * {@code mvn verify -Dgolden.update=true} rewrites them: review the diff before committing.
 */
@ExtendWith(TempNodeExtension.class)
class AwsLayoutGoldenTest
{
    static final String PINNED = "adapter: aws-vpc-cni\n";

    /** aws-node has written 10-aws.conflist: patched, left alone by a second install, given back byte for byte. */
    @Test
    void awsConflist(TestNode node)
    {
        node.binaries("aws-cni", "egress-cni", "portmap", "loopback");
        node.write("10-aws.conflist", AwsVpcCniAdapterTest.AWS);
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "aws", "aws-conflist");
        String before = golden.layout();
        golden.detect("before");
        assertThat(golden.install("install").outcomes()).singleElement().extracting(FileOutcome::result).isEqualTo(FileOutcome.Result.PATCHED);
        assertThat(golden.engine().install().outcomes()).extracting(FileOutcome::result).containsExactly(FileOutcome.Result.UNCHANGED);
        assertThat(golden.uninstall("uninstall").succeeded()).isTrue();
        assertThat(golden.layout()).as("uninstall leaves the node as it was").isEqualTo(before);
    }

    /**
     * aws-node prepares its file in its own container and moves it into the conf dir: before the move there is nothing
     * to patch and nothing is created; after it, the file is patched where it landed.
     */
    @Test
    void theFileMovedInByAwsNode(TestNode node)
            throws Exception
    {
        node.binaries("aws-cni", "egress-cni", "portmap", "loopback");
        NodeGolden golden = NodeGolden.start(node, PINNED, "golden", "aws", "moved-in");
        golden.detect("before");
        assertThat(golden.install("install-before-the-move").outcomes()).isEmpty();
        Path prepared = Files.writeString(node.root().resolve("10-aws.conflist"), AwsVpcCniAdapterTest.AWS);
        node.moveIn(prepared, "10-aws.conflist");
        assertThat(golden.install("install").outcomes()).singleElement().extracting(FileOutcome::result).isEqualTo(FileOutcome.Result.PATCHED);
        assertThat(golden.uninstall("uninstall").succeeded()).isTrue();
        assertThat(node.read("10-aws.conflist")).doesNotContain("linkerd-cni");
    }
}
