package io.cnichain.distribution.cluster;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test on the kit's real cluster: it gets the {@link Cluster} (and a {@link ChartRelease}) as parameters, and finds
 * the node as {@code kit up} left it. Run by {@code scripts/test-cluster}, never by the regular suite.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ClusterExtension.class)
@Tag("cluster")
public @interface RealCluster
{
}
