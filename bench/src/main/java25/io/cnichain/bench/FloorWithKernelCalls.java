package io.cnichain.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The {@link Floor}, after linking the kernel's calls the way the agent does (libc's {@code syscall()} through the
 * Foreign Function &amp; Memory API: one downcall stub, {@code errno} captured, variadic from the second argument) and
 * making one call with it. Its start-up is what the kernel's calls cost a JVM program that does nothing else: the
 * part of the agent's start-up that the floor does not pay.
 *
 * <pre>java OPTIONS -cp cni-chain-bench.jar io.cnichain.bench.FloorWithKernelCalls CONF_DIR</pre>
 */
public final class FloorWithKernelCalls
{
    private FloorWithKernelCalls() {}

    public static void main(String[] args)
            throws Throwable
    {
        Linker linker = Linker.nativeLinker();
        MemorySegment symbol = linker.defaultLookup().find("syscall").orElseThrow();
        MethodHandle syscall = linker.downcallHandle(symbol, FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(1));
        long getpid = System.getProperty("os.arch").equals("aarch64") ? 172 : 39;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            if ((long) syscall.invokeExact(state, getpid, 0L, 0L, 0L, 0L, 0L) <= 0) {
                throw new IllegalStateException("syscall(getpid) failed");
            }
        }
        Floor.main(args);
    }
}
