#pragma once
// Writing results to disk so that a run killed at any moment (SIGKILL included) leaves either the
// previous complete output set or the new one, never a mix, and never follows a link it did not
// make. The protocol is described in docs/cli.md ("Output folder"); in short:
//
//   DIR/results.json -> .synthaudit/current/results.json   (one link per file of the set)
//   DIR/.synthaudit/current -> set-<random>                (replaced by one rename: the publish)
//   DIR/.synthaudit/set-<random>/results.json ...          (the files; never changed once written)
//
// A new set is written into a fresh private folder (mode 0700 while written, O_EXCL and
// O_NOFOLLOW through the folder's descriptor), and becomes visible when `current` is swapped to
// it. Other files in DIR are never touched. This is the layout Kubernetes' AtomicWriter uses for
// projected volumes (kubernetes/pkg/volume/util/atomic_writer.go). A folder copied with its links
// followed (`current` a folder, the names plain files) is taken over by the next publish; where
// the file system refuses symbolic links, each file replaces its name by one rename instead.
#include <optional>
#include <string>
#include <vector>

namespace synthaudit {

// The folder inside the output folder that holds the published sets.
inline constexpr const char* kOutputStateFolder = ".synthaudit";

// One file of an output set: `content`, or std::nullopt to keep the file of that name that the
// folder shows now (`report` replaces report.html and keeps results.json and results.tsv).
struct OutputFile {
  std::string name;
  std::optional<std::string> content;
};

// Checks, before any work is done, that `dir` can take an output set named `names`: it is not one
// of `inputs`, does not hold one of them (a file directly in it, or one of the set's names), none
// of the names is a folder, and DIR/.synthaudit, if present, is a folder of this user, not a
// link. `dir` need not exist. Throws InputError naming the path.
void check_output_folder(const std::string& dir, const std::vector<std::string>& names,
                         const std::vector<std::string>& inputs);

// Writes `files` as a new set and publishes it in `dir` (created if missing): after it returns,
// every name shows the new set; if the process dies before, every name shows what it showed
// before (or nothing, if it showed nothing). A failure removes what this call created (the new
// set, and .synthaudit and DIR and its parents when they were made by it and hold nothing). Sets
// and temporaries left by earlier runs that were killed are removed (only this protocol's names,
// owned by this user). A concurrent publish in the same folder waits for this one (flock). Throws
// InputError when the folder cannot be used.
void publish_output_set(const std::string& dir, const std::vector<OutputFile>& files);

// True when every name in `names` is a link of this protocol in `dir`, or a plain file in a `dir`
// that holds .synthaudit (a copy made with links followed, or a file system without links).
bool is_published_output_set(const std::string& dir, const std::vector<std::string>& names);

// Writes one file `path` through a private temporary file in the same folder (random name,
// O_EXCL, O_NOFOLLOW) and a rename, so a reader never sees a half-written file. Throws InputError
// when the folder is not writable.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace synthaudit
