package io.cnichain.distribution.runtime;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class of the real-runtime suite: it needs root, podman and the real CNI plugins. Without them it is
 * skipped with a loud message, unless {@code CI=true}, where it fails. Its tests may take a {@link Sandbox}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("real-runtime")
@ExtendWith(RealRuntimeExtension.class)
public @interface RealRuntime
{
}
