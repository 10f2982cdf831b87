package io.cnichain.core.fs.linux;

import java.lang.reflect.InvocationTargetException;
import java.util.Locale;

/** Picks the calls once per JVM: the kernel's through FFM where they work, else the Java fallback, with the reason. */
final class Selection
{
    static final String NATIVE_CLASS = "io.cnichain.core.fs.linux.NativeCalls";

    static final FileSystemCalls CHOSEN = choose(System.getProperty(FileSystemCalls.PROPERTY, "auto"));

    private Selection() {}

    static FileSystemCalls choose(String wanted)
    {
        switch (wanted.toLowerCase(Locale.ROOT)) {
            case "java":
                return new JavaCalls("forced by -D" + FileSystemCalls.PROPERTY + "=java");
            case "auto":
            case "native":
                break;
            default:
                return new JavaCalls("-D" + FileSystemCalls.PROPERTY + "=" + wanted + " is not auto, native or java");
        }
        if (Runtime.version().feature() < 25) {
            // The native calls are compiled for 25 (src/main/java25): an older runtime could not load them.
            return new JavaCalls("Java " + Runtime.version().feature() + " cannot run the native calls, which are compiled for Java 25");
        }
        if (!"Linux".equals(System.getProperty("os.name"))) {
            return new JavaCalls("not Linux");
        }
        try {
            // Compiled for Java 25 (src/main/java25), so never loaded by an older runtime.
            Class<?> type = Class.forName(NATIVE_CLASS);
            return (FileSystemCalls) type.getMethod("load").invoke(null);
        }
        catch (ClassNotFoundException e) {
            return new JavaCalls("this build has no native calls (it was built on a JDK older than 25)");
        }
        catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            return new JavaCalls("the native calls failed to start: " + cause);
        }
        catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return new JavaCalls("the native calls cannot load: " + e);
        }
    }
}
