package io.cnichain.distribution.kubernetes;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The NodeReadinessRule we ship, checked against the validation of the controller's CRD, which the API server applies
 * when the rule is created (no API server runs here). The facts, from kubernetes-sigs/node-readiness-controller,
 * {@code api/v1alpha1/nodereadinessrule_types.go} (the kubebuilder markers the CRD is generated from; the taint-key
 * rules are there since v0.2.0, and the chart's reporter image is v0.4.1):
 * <ul>
 *   <li>{@code spec.taint}: the CEL rules below ({@code x-kubernetes-validations}), each evaluated here with the CEL
 *       library and Kubernetes' string extension ({@code split});</li>
 *   <li>{@code spec.conditions}: 1 to 32 items; {@code type} 1 to 316 characters; {@code requiredStatus} one of
 *       True, False, Unknown;</li>
 *   <li>{@code spec.enforcementMode}: one of bootstrap-only, continuous.</li>
 * </ul>
 * Left out: the rules on updates ({@code oldSelf}: the key, effect, value, nodeSelector and enforcementMode are
 * immutable; a first create has no old object), {@code conditionPolicy} and {@code defaultStatus} (we set neither),
 * and the status subresource.
 */
class NodeReadinessRuleCrdTest
{
    /** The taint the rule lifts, which the nodes are registered with. */
    static final String TAINT_KEY = "readiness.k8s.io/cni-chain-not-ready";

    /** {@code spec.taint}'s rules for a create, as the CRD writes them. */
    static final List<String> TAINT_RULES = List.of(
            "self.key.startsWith('readiness.k8s.io/')",
            "self.key.size() <= 253",
            "size(self.key.split('/')) == 2",
            "size(self.key.split('/')[1]) > 0 && size(self.key.split('/')[1]) <= 63",
            "self.key.split('/')[1].matches('^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$')",
            "!has(self.value) || self.value.size() <= 63",
            "self.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute']");

    private static final Cel CEL = CelFactory.standardCelBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addCompilerLibraries(CelExtensions.strings())
            .addRuntimeLibraries(CelExtensions.strings())
            .addVar("self", SimpleType.DYN)
            .setResultType(SimpleType.BOOL)
            .build();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"chart", "components/node-readiness"})
    void theShippedRulePassesTheCrdsValidation(String source)
            throws IOException
    {
        NodeReadinessRule rule = source.equals("chart")
                ? HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true)).one(NodeReadinessRule.class)
                : kustomized().one(NodeReadinessRule.class);
        Map<String, Object> taint = taint(rule.getSpec().taint().getKey(), rule.getSpec().taint().getEffect());
        for (String expression : TAINT_RULES) {
            assertThat(holds(expression, taint)).as(source + ": " + expression).isTrue();
        }
        assertThat(rule.getSpec().taint().getKey()).isEqualTo(TAINT_KEY);
        assertThat(rule.getSpec().conditions()).hasSizeBetween(1, 32).allSatisfy(condition -> {
            assertThat(condition.type()).hasSizeBetween(1, 316);
            assertThat(condition.requiredStatus()).isIn("True", "False", "Unknown");
        });
        assertThat(rule.getSpec().enforcementMode()).isIn("bootstrap-only", "continuous");
    }

    /** The key we shipped before: refused by the API server, so the taint was never lifted. */
    @org.junit.jupiter.api.Test
    void theOldKeyIsRefusedAndEveryRuleIsOneTheCrdHas()
    {
        Map<String, Object> old = taint("cni-chain.io/not-ready", "NoSchedule");
        assertThat(holds(TAINT_RULES.get(0), old)).isFalse();
        assertThat(holds(TAINT_RULES.get(2), taint("readiness.k8s.io/a/b", "NoSchedule"))).isFalse();
        assertThat(holds(TAINT_RULES.get(3), taint("readiness.k8s.io/" + "x".repeat(64), "NoSchedule"))).isFalse();
        assertThat(holds(TAINT_RULES.get(4), taint("readiness.k8s.io/-bad", "NoSchedule"))).isFalse();
        assertThat(holds(TAINT_RULES.get(6), taint(TAINT_KEY, "NoEffect"))).isFalse();
        // The chart refuses such a key at helm install (values.schema.json), before the API server would.
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> HelmChart.render(Map.of("cniChain.nodeReadiness.enabled", true,
                "cniChain.nodeReadiness.taintKey", "cni-chain.io/not-ready")))).hasMessageContaining("taintKey");
    }

    private static Map<String, Object> taint(String key, String effect)
    {
        Map<String, Object> taint = new LinkedHashMap<>();
        taint.put("key", key);
        taint.put("effect", effect);
        return taint;
    }

    private static boolean holds(String expression, Map<String, Object> self)
    {
        try {
            return (Boolean) CEL.createProgram(CEL.compile(expression).getAst()).eval(Map.of("self", self));
        }
        catch (CelValidationException | CelEvaluationException e) {
            throw new AssertionError("CEL: " + expression + ": " + e.getMessage(), e);
        }
    }

    private static Rendered kustomized()
            throws IOException
    {
        Path dir = Path.of("target", "kustomize-node-readiness-crd");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - ../../kubernetes/base
                components:
                  - ../../kubernetes/components/node-readiness
                """);
        return Rendered.of(dir.toAbsolutePath());
    }
}
