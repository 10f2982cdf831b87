package io.cnichain.distribution.agent;

import com.fasterxml.jackson.databind.JsonNode;
import io.cnichain.core.discovery.CniConfigParser;
import io.cnichain.core.discovery.ConfigNames;
import io.cnichain.core.json.CniJson;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * A thread that looks at the conf dir every couple of milliseconds, as a runtime would at any moment, and notes every
 * moment that breaks a rule (the conf dir's own files; links are followed, as the runtime does): a configuration the runtime would not load (parsed by the core's own libcni rules), our
 * entry twice, a configuration naming our plugin while its binary is missing, a {@code .conf} and its
 * {@code .conflist} both missing during a conversion, and a primary's content older than what the primary last
 * wrote (one of our writes brought an old version back).
 *
 * <p>Each check is ordered so that a race with the sampling itself cannot be taken for a fault: a file renamed away
 * between the listing and the read is skipped; the {@code .conf} is looked at before its {@code .conflist} (we
 * write the list before deleting the {@code .conf}); the primary's last generation is read before the files.
 */
final class Observer
        implements AutoCloseable
{
    static final String PLUGIN = "linkerd-cni";
    private static final int KEPT = 20;

    private final Path confDir;
    private final Path binary;
    private final Rules rules;
    private final Thread thread;
    private final List<String> violations = new ArrayList<>();
    private final AtomicLong samples = new AtomicLong();
    private final AtomicLong unparseable = new AtomicLong();
    private final java.util.Set<Long> lostGenerations = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private long violationCount;
    private long lostGenerationViolations;
    private volatile boolean stop;

    private Observer(Path confDir, Path binary, Rules rules)
    {
        this.confDir = confDir;
        this.binary = binary;
        this.rules = rules;
        this.thread = new Thread(this::run, "observer");
        this.thread.setDaemon(true);
    }

    /**
     * @param confDir the conf dir, as the test sees it
     * @param binary  our plugin's binary, as the test sees it
     */
    static Observer start(Path confDir, Path binary, Rules rules)
    {
        Observer observer = new Observer(confDir, binary, rules);
        observer.thread.start();
        return observer;
    }

    private void run()
    {
        while (!stop) {
            sample();
            samples.incrementAndGet();
            LockSupport.parkNanos(2_000_000);
        }
    }

    private void sample()
    {
        OptionalLong latest = rules.primaryGeneration().isPresent() ? OptionalLong.of(rules.primaryGeneration().get().getAsLong()) : OptionalLong.empty();
        rules.conversion().ifPresent(base -> {
            // Checked in this order on purpose: we write the .conflist before we delete the .conf.
            if (!Files.exists(confDir.resolve(base + ".conf")) && !Files.exists(confDir.resolve(base + ".conflist"))) {
                violation("neither " + base + ".conf nor " + base + ".conflist exists");
            }
        });
        List<String> names;
        try (Stream<Path> list = Files.list(confDir)) {
            names = list.map(p -> p.getFileName().toString()).filter(ConfigNames::isRuntimeLoadable).sorted().toList();
        }
        catch (IOException e) {
            return;
        }
        boolean namesPlugin = false;
        long newest = -1;
        for (String name : names) {
            byte[] bytes;
            long before = rules.inPlaceSequence().map(LongSupplier::getAsLong).orElse(0L);
            try {
                bytes = Files.readAllBytes(confDir.resolve(name));
            }
            catch (NoSuchFileException gone) {
                continue;
            }
            catch (IOException e) {
                continue;
            }
            CniConfigParser.LoadedConfig loaded;
            try {
                loaded = CniConfigParser.parse(name, bytes);
            }
            catch (CniConfigParser.InvalidConfigException e) {
                unparseable.incrementAndGet();
                long after = rules.inPlaceSequence().map(LongSupplier::getAsLong).orElse(0L);
                // The primary's own half-written file, read while it wrote in place, is not ours to answer for.
                boolean primaryWriting = before % 2 == 1 || after != before;
                if (!primaryWriting) {
                    violation(name + " would not load (" + e.getMessage() + "): " + abbreviate(new String(bytes, StandardCharsets.UTF_8)));
                }
                continue;
            }
            int ours = loaded.count(PLUGIN);
            if (ours > 1) {
                violation(name + " holds " + ours + " entries of ours");
            }
            namesPlugin |= ours > 0;
            newest = Math.max(newest, generation(bytes).orElse(-1));
        }
        if (namesPlugin && !Files.exists(binary)) {
            violation("a configuration names " + PLUGIN + " while " + binary + " does not exist");
        }
        if (latest.isPresent() && newest >= 0 && newest < latest.getAsLong()) {
            lostGenerations.add(latest.getAsLong());
            lostGenerationViolations++;
            violation("the primary last wrote generation " + latest.getAsLong() + " but the newest configuration holds generation " + newest
                    + ": an older version came back");
        }
    }

    /** The {@code "gen"} a test primary puts in its file, at the top or in the first plugin (where a converted .conf keeps it). */
    static OptionalLong generation(byte[] bytes)
    {
        try {
            JsonNode root = CniJson.parse(bytes);
            JsonNode gen = root.has("gen") ? root.get("gen") : root.path("plugins").path(0).get("gen");
            return gen != null && gen.canConvertToLong() ? OptionalLong.of(gen.asLong()) : OptionalLong.empty();
        }
        catch (RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    private synchronized void violation(String what)
    {
        violationCount++;
        if (violations.size() < KEPT) {
            violations.add("sample " + samples.get() + ": " + what);
        }
    }

    private static String abbreviate(String text)
    {
        return text.length() <= 200 ? text : text.substring(0, 200) + "... (" + text.length() + " chars)";
    }

    long samples()
    {
        return samples.get();
    }

    /** @return reads of a runtime-loadable file that did not parse (the primary's own half files, or faults) */
    long unparseable()
    {
        return unparseable.get();
    }

    /** @return the primary's generations that an older version replaced, each once however long it lasted */
    java.util.Set<Long> lostGenerations()
    {
        return java.util.Set.copyOf(lostGenerations);
    }

    /** How many samples broke a rule other than "an older version came back" (which a lost-update race may cause). */
    synchronized long violationsOtherThanLostGenerations()
    {
        return violationCount - lostGenerationViolations;
    }

    synchronized List<String> violations()
    {
        List<String> all = new ArrayList<>(violations);
        if (violationCount > violations.size()) {
            all.add("... and " + (violationCount - violations.size()) + " more");
        }
        return all;
    }

    @Override
    public void close()
    {
        stop = true;
        try {
            thread.join(5000);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the observer holds the conf dir to.
     *
     * @param inPlaceSequence   the primary's {@link Primary#inPlaceSequence()}, when it writes in place: a file that does not
     *                          parse while it wrote is its own half file; any other moment, every runtime-loadable file parses
     * @param conversion        the base name of a {@code .conf} being converted: never both it and its list missing
     * @param primaryGeneration the generation the primary last finished writing, when it numbers its versions
     */
    record Rules(Optional<LongSupplier> inPlaceSequence, Optional<String> conversion, Optional<LongSupplier> primaryGeneration)
    {
        static Rules strict()
        {
            return new Rules(Optional.empty(), Optional.empty(), Optional.empty());
        }

        Rules converting(String base)
        {
            return new Rules(inPlaceSequence, Optional.of(base), primaryGeneration);
        }

        Rules generations(LongSupplier latest)
        {
            return new Rules(inPlaceSequence, conversion, Optional.of(latest));
        }

        Rules primaryWritesInPlace(LongSupplier sequence)
        {
            return new Rules(Optional.of(sequence), conversion, primaryGeneration);
        }
    }
}
