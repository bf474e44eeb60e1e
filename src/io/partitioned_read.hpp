#pragma once
// Reading one data file split by rows over the ranks of a partitioned evaluation (docs/mpi.md).
// Every function here is a collective (core/communicator.hpp): all ranks call it in the same
// order, and a failure on any rank becomes the same InputError on every rank (the lowest failing
// rank's, with the file's own row numbers), so no rank is left waiting.
//
// A plain-text file (CSV) is read by byte ranges: every rank reads the header, then the rows that
// start in its share [size*r/N, size*(r+1)/N) of the bytes after it. A row starts after a line
// break that is not inside a quoted field; each rank counts the quotes of its share and the counts
// are exchanged, so each knows whether its share begins inside a quoted field. When the ranks'
// parts do not read cleanly (a layout only the first rows show, a stray quote, too few rows to
// detect the decimal mark as one reader would) and for gzip, Stata, SPSS and SAS files, every rank
// reads the whole file and keeps its row range, so the result and every error are those of one
// process.
//
// The kinds of the columns and the dictionaries are agreed by all ranks: a column is numeric when
// it is on every rank, and each dictionary is the union of the ranks' levels in rank (= file)
// order, so a code means the same level on every rank and as in one process.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/communicator.hpp"
#include "io/load.hpp"

namespace synthaudit {

// Runs `step` on every rank; when it throws on any rank, every rank throws the lowest failing
// rank's error (an InputError stays one; anything else becomes std::runtime_error naming the
// rank). `rewrite` may adjust an InputError's message on the rank it was thrown on.
void run_agreed(Communicator& communicator, const std::function<void()>& step,
                const std::function<std::string(const std::string&)>& rewrite = {});

struct PartitionedFile {
  std::unique_ptr<DataFile> rows;   // this rank's rows, with the whole file's header
  std::size_t first_row = 0;        // 0-based row of the file where this rank's rows begin
  std::size_t total_rows = 0;       // rows of the whole file
  std::string sha256;               // of the whole file as stored
  std::string assumed_layout;       // as one process reading the whole file would say it
  bool read_by_byte_range = false;  // false: every rank read the whole file
};

PartitionedFile open_partitioned(const std::string& path, const ReadSettings& settings,
                                 Communicator& communicator);

// infer_schema over the whole file: the same kinds on every rank as one process would infer.
Schema infer_partitioned_schema(const PartitionedFile& file, const ReadSettings& settings,
                                Communicator& communicator);

// encode_table of this rank's rows. The schema's dictionaries (equal on every rank before the
// call) take the new levels of every rank in file order, so they are equal again afterwards and
// equal to one process's before finalize_dictionaries. The tallies are the whole file's.
Table encode_partitioned(const PartitionedFile& file, const Schema& schema,
                         const ReadSettings& settings, const std::string& role,
                         Communicator& communicator, std::vector<std::string>* ignored = nullptr,
                         std::vector<MissingTally>* tallies = nullptr);

}  // namespace synthaudit
