package io.cnichain.core.fs.linux;

/** The open flags and the system call numbers, which differ between architectures. */
enum Architecture
{
    X86_64(0200000, 0400000, 257, 332, 0, 1, 74, 3, 316, 263, 217, 196, 193, 190, 91),
    AARCH64(040000, 0100000, 56, 291, 63, 64, 82, 57, 276, 35, 61, 13, 10, 7, 52);

    final int oDirectory;
    final int oNoFollow;
    final long openat;
    final long statx;
    final long read;
    final long write;
    final long fsync;
    final long close;
    final long renameat2;
    final long unlinkat;
    final long getdents64;
    final long flistxattr;
    final long fgetxattr;
    final long fsetxattr;
    final long fchmod;

    Architecture(int oDirectory, int oNoFollow, long openat, long statx, long read, long write, long fsync, long close, long renameat2,
            long unlinkat, long getdents64, long flistxattr, long fgetxattr, long fsetxattr, long fchmod)
    {
        this.oDirectory = oDirectory;
        this.oNoFollow = oNoFollow;
        this.openat = openat;
        this.statx = statx;
        this.read = read;
        this.write = write;
        this.fsync = fsync;
        this.close = close;
        this.renameat2 = renameat2;
        this.unlinkat = unlinkat;
        this.getdents64 = getdents64;
        this.flistxattr = flistxattr;
        this.fgetxattr = fgetxattr;
        this.fsetxattr = fsetxattr;
        this.fchmod = fchmod;
    }

    static Architecture current()
    {
        return switch (System.getProperty("os.arch")) {
            case "amd64", "x86_64" -> X86_64;
            case "aarch64", "arm64" -> AARCH64;
            default -> throw new UnsupportedOperationException("no open flags known for " + System.getProperty("os.arch"));
        };
    }
}
