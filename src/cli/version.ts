// The version numakit reports (--version, the man page); a unit test keeps it equal to package.json's.
export const VERSION = '0.1.0';
