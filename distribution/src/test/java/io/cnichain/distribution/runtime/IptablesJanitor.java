package io.cnichain.distribution.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Removes the iptables chains the suite's CNI plugins made: the bridge plugin's per-container masquerade chains
 * and portmap's per-container {@code CNI-DN-*} chains (normally gone after DEL; left behind when a test fails
 * between ADD and DEL), and portmap's shared {@code CNI-HOSTPORT-*} chains, which portmap never removes. Only
 * chains that did not exist when the suite started are touched: a per-container chain only when its rules name
 * one of the suite's networks or subnets, the shared ones only when no other container's rule is left in them.
 */
final class IptablesJanitor
{
    private static final List<String> TABLES = List.of("nat", "filter");
    private static final List<String> HOSTPORT_CHAINS = List.of("CNI-HOSTPORT-DNAT", "CNI-HOSTPORT-SETMARK", "CNI-HOSTPORT-MASQ");

    private final Map<String, Set<String>> before;
    private final List<String> markers;

    private IptablesJanitor(Map<String, Set<String>> before, List<String> markers)
    {
        this.before = before;
        this.markers = List.copyOf(markers);
    }

    /**
     * @param markers texts that only the suite's rules contain (network-name prefix, subnet prefix)
     */
    static IptablesJanitor baseline(List<String> markers)
    {
        Map<String, Set<String>> before = new HashMap<>();
        for (String table : TABLES) {
            before.put(table, chains(rules(table)));
        }
        return new IptablesJanitor(before, markers);
    }

    void cleanUp()
    {
        List<String> left = new ArrayList<>();
        for (String table : TABLES) {
            List<String> rules = rules(table);
            Set<String> ours = new LinkedHashSet<>();
            for (String chain : chains(rules)) {
                if (chain.startsWith("CNI-") && !before.get(table).contains(chain) && !HOSTPORT_CHAINS.contains(chain)
                        && rulesOf(rules, chain).stream().anyMatch(rule -> markers.stream().anyMatch(rule::contains))) {
                    ours.add(chain);
                }
            }
            remove(table, ours);

            rules = rules(table);
            Set<String> hostport = new LinkedHashSet<>();
            for (String chain : HOSTPORT_CHAINS) {
                if (chains(rules).contains(chain) && !before.get(table).contains(chain)) {
                    hostport.add(chain);
                }
            }
            if (!hostport.isEmpty() && rulesOf(rules, "CNI-HOSTPORT-DNAT").isEmpty()) {
                remove(table, hostport);
            }
            for (String rule : rules(table)) {
                if (markers.stream().anyMatch(rule::contains)) {
                    left.add(table + ": " + rule);
                }
            }
        }
        if (!left.isEmpty()) {
            throw new IllegalStateException("rules of the suite are still in place:\n" + String.join("\n", left));
        }
    }

    private static void remove(String table, Set<String> chains)
    {
        if (chains.isEmpty()) {
            return;
        }
        for (String rule : rules(table)) {
            // "-A POSTROUTING ... -j CNI-abc": the same words with -D delete it; the shell undoes iptables' quoting.
            if (rule.startsWith("-A ") && chains.stream().anyMatch(chain -> rule.endsWith(" -j " + chain) || rule.contains(" -j " + chain + " "))) {
                Commands.run("sh", "-c", "iptables -w -t " + table + " -D " + rule.substring(3));
            }
        }
        for (String chain : chains) {
            Commands.run("iptables", "-w", "-t", table, "-F", chain);
        }
        for (String chain : chains) {
            Commands.run("iptables", "-w", "-t", table, "-X", chain);
        }
    }

    private static List<String> rules(String table)
    {
        return Commands.ok("iptables", "-w", "-t", table, "-S").out().lines().toList();
    }

    private static Set<String> chains(List<String> rules)
    {
        Set<String> chains = new LinkedHashSet<>();
        for (String rule : rules) {
            if (rule.startsWith("-N ") || rule.startsWith("-P ")) {
                chains.add(rule.split(" ")[1]);
            }
        }
        return chains;
    }

    private static List<String> rulesOf(List<String> rules, String chain)
    {
        return rules.stream().filter(rule -> rule.startsWith("-A " + chain + " ")).toList();
    }
}
