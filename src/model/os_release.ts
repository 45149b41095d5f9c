// The distribution a machine runs, from /etc/os-release (os-release(5)). Plain data.
export interface OsRelease {
  /** ID: debian, ubuntu, rhel, rocky, almalinux, centos, fedora, ol ... */
  readonly id: string;
  /** ID_LIKE, split: ["rhel", "centos", "fedora"]. */
  readonly idLike: string[];
  /** VERSION_ID: "12", "22.04", "9.4"; null when absent (Debian testing). */
  readonly versionId: string | null;
  readonly prettyName: string | null;
  /** Where it was read, root-relative. */
  readonly path: string;
}
