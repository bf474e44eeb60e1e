// Preloaded (LD_PRELOAD) into synthaudit by tests/cli/output_set.sh to stand for a file system
// that holds no symbolic links (FAT, exFAT, some network shares), where symlink(2) fails with
// EPERM: the output set must then be published as plain files.
#include <cerrno>

extern "C" int symlinkat(const char*, int, const char*) {
  errno = EPERM;
  return -1;
}

extern "C" int symlink(const char*, const char*) {
  errno = EPERM;
  return -1;
}
