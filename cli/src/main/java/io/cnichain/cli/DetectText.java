package io.cnichain.cli;

import io.cnichain.core.Printable;
import io.cnichain.core.engine.DetectReport;
import io.cnichain.core.fs.linux.FileSystemCalls;

import java.util.List;

/** The text form of a {@link DetectReport}. */
final class DetectText
{
    private DetectText() {}

    static String render(DetectReport report)
    {
        StringBuilder out = new StringBuilder();
        out.append("Node\n");
        out.append("  conf dir  ").append(report.confDir()).append('\n');
        out.append("  bin dir   ").append(report.binDir()).append('\n');
        out.append("  fs calls  ").append(FileSystemCalls.get().describe()).append('\n');
        out.append('\n').append("Adapters\n");
        int width = report.adapters().stream().mapToInt(a -> a.name().length()).max().orElse(10);
        for (DetectReport.AdapterScore adapter : report.adapters()) {
            out.append(adapter.name().equals(report.chosen()) ? "  * " : "    ")
                    .append(String.format("%-" + width + "s  score %3d  %s%s", adapter.name(), adapter.score(), adapter.origin(),
                            adapter.state().equals("enabled") ? "" : "  [" + adapter.state() + "]"))
                    .append('\n');
            for (String evidence : adapter.evidence()) {
                out.append("        - ").append(Printable.line(evidence)).append('\n');
            }
            adapter.failure().ifPresent(failure -> out.append("        ! ").append(Printable.line(failure)).append('\n'));
        }
        out.append("  chosen: ").append(report.chosen()).append(" (").append(Printable.line(report.why())).append(")\n");
        out.append('\n').append("Placement\n");
        out.append("  ").append(report.placement()).append(" (").append(Printable.line(report.placementWhy())).append(")\n");
        out.append('\n').append("Effective configuration (what the runtime loads)\n");
        if (report.effective().isEmpty()) {
            out.append("  none\n");
        }
        else {
            DetectReport.Effective effective = report.effective().get();
            out.append("  ").append(Printable.line(effective.path())).append('\n');
            if (!effective.linkChain().isEmpty()) {
                out.append("    links   ").append(Printable.line(String.join(" -> ", effective.linkChain()))).append(" -> ")
                        .append(Printable.line(effective.resolvedFile())).append('\n');
            }
            out.append("    network ").append(Printable.line(effective.networkName())).append('\n');
            out.append("    plugins ").append(Printable.line(String.join(", ", effective.plugins()))).append('\n');
            for (String dropIn : effective.dropIns()) {
                out.append("    drop-in ").append(Printable.line(dropIn)).append('\n');
            }
            out.append("    ours    ").append(effective.carriesEntry() ? "yes, it carries the chained plugin" : "no, not yet").append('\n');
        }
        out.append('\n').append("Would patch\n");
        if (report.targets().isEmpty()) {
            out.append("  nothing\n");
        }
        for (DetectReport.Target target : report.targets()) {
            out.append("  ").append(Printable.line(target.path())).append('\n');
            if (!target.path().equals(target.resolvedFile())) {
                out.append("    target  ").append(Printable.line(target.resolvedFile())).append('\n');
            }
            out.append("    why     ").append(Printable.line(target.reason())).append('\n');
            out.append("    plan    ").append(Printable.line(target.plan())).append('\n');
        }
        section(out, "Problems", report.problems());
        section(out, "Notes", report.notes());
        return out.toString();
    }

    private static void section(StringBuilder out, String title, List<String> lines)
    {
        out.append('\n').append(title).append('\n');
        if (lines.isEmpty()) {
            out.append("  none\n");
        }
        for (String line : lines) {
            out.append("  - ").append(Printable.line(line)).append('\n');
        }
    }
}
