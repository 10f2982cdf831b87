package io.cnichain.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cnichain.core.engine.DetectReport;
import io.cnichain.core.json.CniJson;

import java.util.List;

/**
 * The JSON form of a {@link DetectReport}, built field by field: it is an interface other tools parse, so
 * its shape is written down here rather than derived from the Java types.
 */
final class DetectJson
{
    private DetectJson() {}

    static ObjectNode render(DetectReport report)
    {
        ObjectNode root = CniJson.nodes().objectNode();
        root.put("confDir", report.confDir());
        root.put("binDir", report.binDir());
        root.put("fileCalls", io.cnichain.core.fs.linux.FileSystemCalls.get().describe());
        ArrayNode adapters = root.putArray("adapters");
        for (DetectReport.AdapterScore adapter : report.adapters()) {
            ObjectNode node = adapters.addObject();
            node.put("name", adapter.name());
            node.put("origin", adapter.origin());
            node.put("state", adapter.state());
            node.put("score", adapter.score());
            strings(node.putArray("evidence"), adapter.evidence());
            adapter.failure().ifPresent(failure -> node.put("failure", failure));
        }
        root.put("chosen", report.chosen());
        root.put("why", report.why());
        ObjectNode placement = root.putObject("placement");
        placement.put("mode", report.placement());
        placement.put("why", report.placementWhy());
        report.effective().ifPresentOrElse(effective -> {
            ObjectNode node = root.putObject("effective");
            node.put("path", effective.path());
            strings(node.putArray("linkChain"), effective.linkChain());
            node.put("target", effective.resolvedFile());
            node.put("network", effective.networkName());
            strings(node.putArray("plugins"), effective.plugins());
            strings(node.putArray("dropIns"), effective.dropIns());
            node.put("carriesEntry", effective.carriesEntry());
        }, () -> root.putNull("effective"));
        ArrayNode targets = root.putArray("targets");
        for (DetectReport.Target target : report.targets()) {
            ObjectNode node = targets.addObject();
            node.put("path", target.path());
            node.put("target", target.resolvedFile());
            node.put("reason", target.reason());
            node.put("plan", target.plan());
        }
        strings(root.putArray("problems"), report.problems());
        strings(root.putArray("notes"), report.notes());
        return root;
    }

    private static void strings(ArrayNode array, List<String> values)
    {
        values.forEach(array::add);
    }
}
