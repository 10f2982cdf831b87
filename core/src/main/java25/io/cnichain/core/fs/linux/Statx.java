package io.cnichain.core.fs.linux;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/** {@code struct statx}, up to the fields read (the same on every architecture), and what the calls read from it. */
final class Statx
{
    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("stx_mask"), JAVA_INT.withName("stx_blksize"), JAVA_LONG.withName("stx_attributes"),
            JAVA_INT.withName("stx_nlink"), JAVA_INT.withName("stx_uid"), JAVA_INT.withName("stx_gid"),
            JAVA_SHORT.withName("stx_mode"), MemoryLayout.paddingLayout(2), JAVA_LONG.withName("stx_ino"), JAVA_LONG.withName("stx_size"),
            JAVA_LONG.withName("stx_blocks"), JAVA_LONG.withName("stx_attributes_mask"),
            // stx_atime and stx_btime, then stx_ctime and stx_mtime: each a struct statx_timestamp (seconds, nanoseconds, padding).
            MemoryLayout.paddingLayout(32),
            JAVA_LONG.withName("stx_ctime_sec"), JAVA_INT.withName("stx_ctime_nsec"), MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("stx_mtime_sec"), JAVA_INT.withName("stx_mtime_nsec"), MemoryLayout.paddingLayout(4),
            JAVA_INT.withName("stx_rdev_major"), JAVA_INT.withName("stx_rdev_minor"), JAVA_INT.withName("stx_dev_major"),
            JAVA_INT.withName("stx_dev_minor"), MemoryLayout.paddingLayout(112));
    /** statx's mask for the file type and permission bits. */
    static final int TYPE_MODE = 0x0001 | 0x0002;
    /** statx's mask for the fields {@link #status} reads: type, mode, link count, owner and group. */
    static final int STATUS = TYPE_MODE | 0x0004 | 0x0008 | 0x0010;
    /** statx's mask for the fields {@link #identity} reads: inode, size, change and modification times (the device always comes). */
    static final int IDENTITY = 0x0100 | 0x0200 | 0x0080 | 0x0040;
    /** statx's mask bit for {@code stx_size}. */
    static final int SIZE = 0x0200;
    // Plain reads at these offsets: a var handle for each field would be more to link at start.
    private static final long NLINK_AT = LAYOUT.byteOffset(groupElement("stx_nlink"));
    private static final long UID_AT = LAYOUT.byteOffset(groupElement("stx_uid"));
    private static final long GID_AT = LAYOUT.byteOffset(groupElement("stx_gid"));
    private static final long MODE_AT = LAYOUT.byteOffset(groupElement("stx_mode"));
    private static final long INO_AT = LAYOUT.byteOffset(groupElement("stx_ino"));
    private static final long SIZE_AT = LAYOUT.byteOffset(groupElement("stx_size"));
    private static final long CTIME_SEC_AT = LAYOUT.byteOffset(groupElement("stx_ctime_sec"));
    private static final long CTIME_NSEC_AT = LAYOUT.byteOffset(groupElement("stx_ctime_nsec"));
    private static final long MTIME_SEC_AT = LAYOUT.byteOffset(groupElement("stx_mtime_sec"));
    private static final long MTIME_NSEC_AT = LAYOUT.byteOffset(groupElement("stx_mtime_nsec"));
    private static final long DEV_MAJOR_AT = LAYOUT.byteOffset(groupElement("stx_dev_major"));
    private static final long DEV_MINOR_AT = LAYOUT.byteOffset(groupElement("stx_dev_minor"));

    private Statx() {}

    /** @return the file type and permission bits */
    static int mode(MemorySegment stat)
    {
        return Short.toUnsignedInt(stat.get(JAVA_SHORT, MODE_AT));
    }

    static long size(MemorySegment stat)
    {
        return stat.get(JAVA_LONG, SIZE_AT);
    }

    /** @param stat filled in for {@link #STATUS} */
    static FileSystemCalls.Status status(MemorySegment stat)
    {
        return new FileSystemCalls.Status(mode(stat), stat.get(JAVA_INT, NLINK_AT), stat.get(JAVA_INT, UID_AT), stat.get(JAVA_INT, GID_AT));
    }

    /** @param stat filled in for {@link #IDENTITY} */
    static FileSystemCalls.Identity identity(MemorySegment stat)
    {
        long major = Integer.toUnsignedLong(stat.get(JAVA_INT, DEV_MAJOR_AT));
        long minor = Integer.toUnsignedLong(stat.get(JAVA_INT, DEV_MINOR_AT));
        // st_dev as glibc's makedev() makes it, so that the Java fallback (which reads st_dev) agrees.
        long device = (major & 0xfffff000L) << 32 | (major & 0xfffL) << 8 | (minor & 0xffffff00L) << 12 | minor & 0xffL;
        return new FileSystemCalls.Identity(device, stat.get(JAVA_LONG, INO_AT), size(stat), nanos(stat, MTIME_SEC_AT, MTIME_NSEC_AT),
                nanos(stat, CTIME_SEC_AT, CTIME_NSEC_AT));
    }

    private static long nanos(MemorySegment stat, long secondsAt, long nanosAt)
    {
        return stat.get(JAVA_LONG, secondsAt) * 1_000_000_000L + Integer.toUnsignedLong(stat.get(JAVA_INT, nanosAt));
    }
}
