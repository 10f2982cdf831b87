package io.cnichain.testkit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that needs root (owners, {@code chattr}, mounts) and some commands. Without
 * them it is skipped with a loud banner, unless {@code CI=true}, where it fails: a suite that proves nothing must not
 * look green in CI.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("reliability")
@ExtendWith(NeedsRootExtension.class)
public @interface NeedsRoot
{
    /** @return commands the tests run (looked up on the PATH and in the usual sbin and bin directories) */
    String[] commands() default {};
}
