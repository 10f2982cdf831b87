package io.cnichain.distribution.kubernetes;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchCondition;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A rendered ValidatingAdmissionPolicy's CEL, compiled and evaluated by Google's CEL for Java the way the API server
 * evaluates it for one request: the match conditions (all true, or the policy does not apply), then the variables in
 * order (each sees the ones before it as {@code variables}), then every validation; the first false one denies, with
 * its message (or its messageExpression, evaluated). {@code object}, {@code oldObject} and {@code request} are the
 * JSON forms the API server would pass, as maps.
 *
 * <p>Not the API server's own CEL environment: the expressions are type-checked here against dynamic values, not
 * against the Node's OpenAPI schema, and neither Kubernetes' extension libraries nor its cost limits apply (the
 * policy uses none of those libraries; only standard CEL: has, all, exists, in, size, conditionals, equality).
 */
final class AdmissionPolicy
{
    private static final Cel CEL = CelFactory.standardCelBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("request", SimpleType.DYN)
            .addVar("variables", SimpleType.DYN)
            .addVar("params", SimpleType.DYN)
            .setResultType(SimpleType.DYN)
            .build();

    private final ValidatingAdmissionPolicy policy;
    private final Object params;

    AdmissionPolicy(ValidatingAdmissionPolicy policy)
    {
        this(policy, null);
    }

    /**
     * @param params the object the binding's {@code paramRef} names, as the API server hands it to the expressions
     *               ({@code params}); null for a policy without {@code paramKind}
     */
    AdmissionPolicy(ValidatingAdmissionPolicy policy, Object params)
    {
        this.policy = policy;
        this.params = params;
    }

    /** What the API server decides. */
    sealed interface Decision
    {
        /** The match conditions did not all hold: the policy does not apply to this request. */
        record NotApplicable(String condition) implements Decision {}

        record Allowed() implements Decision {}

        record Denied(String expression, String message, String reason) implements Decision {}
    }

    Decision evaluate(Map<String, Object> request, Map<String, Object> oldObject, Map<String, Object> object)
    {
        Map<String, Object> activation = new LinkedHashMap<>();
        activation.put("request", request);
        activation.put("oldObject", oldObject);
        activation.put("object", object);
        if (params != null) {
            activation.put("params", params);
        }
        Map<String, Object> variables = new LinkedHashMap<>();
        activation.put("variables", variables);
        for (MatchCondition condition : Optional.ofNullable(policy.getSpec().getMatchConditions()).orElse(List.of())) {
            if (!Boolean.TRUE.equals(eval(condition.getExpression(), activation))) {
                return new Decision.NotApplicable(condition.getName());
            }
        }
        for (Variable variable : Optional.ofNullable(policy.getSpec().getVariables()).orElse(List.of())) {
            variables.put(variable.getName(), eval(variable.getExpression(), activation));
        }
        for (Validation validation : policy.getSpec().getValidations()) {
            Object result = eval(validation.getExpression(), activation);
            if (!(result instanceof Boolean)) {
                throw new AssertionError("not a bool: " + validation.getExpression() + " gave " + result);
            }
            if (!(Boolean) result) {
                String message = validation.getMessageExpression() != null
                        ? (String) eval(validation.getMessageExpression(), activation)
                        : validation.getMessage();
                return new Decision.Denied(validation.getExpression(), message, validation.getReason());
            }
        }
        return new Decision.Allowed();
    }

    private static Object eval(String expression, Map<String, Object> activation)
    {
        try {
            return CEL.createProgram(CEL.compile(expression).getAst()).eval(activation);
        }
        catch (CelValidationException | CelEvaluationException e) {
            throw new AssertionError("CEL: " + expression + ": " + e.getMessage(), e);
        }
    }
}
