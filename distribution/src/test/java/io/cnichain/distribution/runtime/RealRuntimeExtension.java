package io.cnichain.distribution.runtime;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.util.List;

/**
 * Checks the machine before every test (so that each one is reported as skipped, or in CI as failed, on its own),
 * and makes the suite's {@link Sandbox} once per run: it lives in the root store, so JUnit closes it (removing
 * everything the suite made) when the whole run ends.
 */
final class RealRuntimeExtension
        implements BeforeEachCallback, ParameterResolver
{
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RealRuntimeExtension.class);

    @Override
    public void beforeEach(ExtensionContext context)
    {
        List<String> missing = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(Missing.class, key -> new Missing(RuntimeRequirements.missing()), Missing.class).lines();
        if (missing.isEmpty()) {
            return;
        }
        // The image's tests share these requirements; each banner names its own suite.
        String suite = context.getRequiredTestClass().getPackageName().endsWith(".image") ? "image suite" : "real-runtime suite";
        String what = "the " + suite + " needs " + String.join("; ", missing);
        if (RuntimeRequirements.inCi()) {
            throw new IllegalStateException("CI=true, so this is a failure, not a skip: " + what + ". As root, scripts/test installs: "
                    + RuntimeRequirements.PACKAGES);
        }
        if (context.getRoot().getStore(NAMESPACE).get("banner " + suite) == null) {
            context.getRoot().getStore(NAMESPACE).put("banner " + suite, Boolean.TRUE);
            String rule = "!".repeat(100);
            Steps.say(rule);
            Steps.say("SKIPPING THE " + suite.toUpperCase(java.util.Locale.ROOT) + ": NOTHING IS PROVEN ON A REAL RUNTIME IN THIS RUN");
            missing.forEach(line -> Steps.say("  missing: " + line));
            Steps.say("  run as root: scripts/test (it installs " + RuntimeRequirements.PACKAGES + ")");
            Steps.say("  (with CI=true this is a failure, not a skip)");
            Steps.say(rule);
        }
        Assumptions.abort(what);
    }

    private static Sandbox sandbox(ExtensionContext context)
    {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Sandbox.class, key -> Sandbox.create(), Sandbox.class);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context)
    {
        return parameter.getParameter().getType() == Sandbox.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context)
    {
        return sandbox(context);
    }

    private record Missing(List<String> lines)
    {
        Missing
        {
            lines = List.copyOf(lines);
        }
    }
}
