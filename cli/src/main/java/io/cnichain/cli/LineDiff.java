package io.cnichain.cli;

import java.util.ArrayList;
import java.util.List;

/** A whole-file line diff (longest common subsequence): enough for configuration files of a few hundred lines. */
final class LineDiff
{
    private LineDiff() {}

    /**
     * @return every line of both texts, prefixed with two spaces (kept), "- " (removed) or "+ " (added)
     */
    static List<String> diff(String before, String after)
    {
        List<String> a = before.isEmpty() ? List.of() : before.lines().toList();
        List<String> b = after.isEmpty() ? List.of() : after.lines().toList();
        int[][] lcs = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        List<String> out = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() && j < b.size()) {
            if (a.get(i).equals(b.get(j))) {
                out.add("  " + a.get(i++));
                j++;
            }
            else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
                out.add("- " + a.get(i++));
            }
            else {
                out.add("+ " + b.get(j++));
            }
        }
        while (i < a.size()) {
            out.add("- " + a.get(i++));
        }
        while (j < b.size()) {
            out.add("+ " + b.get(j++));
        }
        return out;
    }
}
