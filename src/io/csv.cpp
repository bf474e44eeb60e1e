#include "io/csv.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "core/error.hpp"

namespace synthaudit {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

namespace {

std::string read_file_bytes(const std::string& path) {
  // POSIX rather than std::ifstream: a directory "opens" as a stream and then reports a bogus
  // size, and errno is not reliably set by the stream.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot open file (" + std::strerror(errno) + ")");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw InputError(path + ": cannot read file (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a folder, not a file");
  std::string bytes;
  if (S_ISREG(st.st_mode)) bytes.reserve(static_cast<std::size_t>(st.st_size));
  std::size_t have = 0;
  while (true) {
    // Regular files are read in one go; pipes and devices in 1 MiB steps until EOF.
    if (bytes.size() == have)
      bytes.resize(std::max<std::size_t>(have + (1 << 20), bytes.capacity()));
    const ssize_t got = ::read(fd, bytes.data() + have, bytes.size() - have);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": cannot read file (" + std::strerror(errno) + ")");
    }
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  bytes.resize(have);
  return bytes;
}

std::string gunzip(const std::string& compressed, const std::string& path) {
  z_stream stream{};
  // 15 + 32: zlib or gzip header, detected automatically.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) throw InputError(path + ": cannot start gzip");
  std::string out;
  out.resize(std::max<std::size_t>(compressed.size() * 4, 1 << 16));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::size_t produced = 0;
  int status = Z_OK;
  while (true) {
    if (produced == out.size()) out.resize(out.size() * 2);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - produced, 1u << 30));
    const uInt before = stream.avail_out;
    status = inflate(&stream, Z_NO_FLUSH);
    produced += before - stream.avail_out;
    if (status == Z_STREAM_END) {
      // Concatenated gzip members are valid gzip: continue with the next one.
      if (stream.avail_in > 0) {
        inflateReset(&stream);
        continue;
      }
      break;
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      inflateEnd(&stream);
      throw InputError(path + ": corrupt gzip data");
    }
    if (status == Z_BUF_ERROR && stream.avail_in == 0) {
      inflateEnd(&stream);
      throw InputError(path + ": truncated gzip data");
    }
  }
  inflateEnd(&stream);
  out.resize(produced);
  return out;
}

// Well-formed UTF-8 as defined by Unicode (table 3-7): no overlong forms, no surrogates, nothing
// above U+10FFFF, no truncated sequence.
bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < n && byte(k) >= lo && byte(k) <= hi;
  };
  while (i < n) {
    const unsigned c = byte(i);
    if (c < 0x80) {
      i += 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      if (!cont(i + 1)) return false;
      i += 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      const unsigned lo = c == 0xE0 ? 0xA0 : 0x80;
      const unsigned hi = c == 0xED ? 0x9F : 0xBF;
      if (!cont(i + 1, lo, hi) || !cont(i + 2)) return false;
      i += 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      const unsigned lo = c == 0xF0 ? 0x90 : 0x80;
      const unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
      if (!cont(i + 1, lo, hi) || !cont(i + 2) || !cont(i + 3)) return false;
      i += 4;
    } else {
      return false;
    }
  }
  return true;
}

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

}  // namespace

CsvFile CsvFile::open(const std::string& path, const CsvOptions& options) {
  std::string bytes = read_file_bytes(path);
  std::string digest = sha256_hex(bytes);
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b)
    bytes = gunzip(bytes, path);
  CsvFile file = from_bytes(std::move(bytes), path, options);
  file.sha256_ = std::move(digest);
  return file;
}

CsvFile CsvFile::from_bytes(std::string bytes, const std::string& name, const CsvOptions& options) {
  CsvFile file;
  file.path_ = name;
  file.delimiter_ = options.delimiter;
  file.threads_ = resolve_threads(options.threads);
  if (file.sha256_.empty()) file.sha256_ = sha256_hex(bytes);
  file.bytes_ = std::move(bytes);
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r')
    throw InputError(name + ": the delimiter cannot be a quote or a line break");
  file.index_rows();
  return file;
}

std::size_t CsvFile::tokenize(std::size_t offset, std::vector<std::string_view>& fields,
                              std::string& scratch) const {
  // Quoted fields containing "" are unescaped into `scratch`. Their views are patched in only
  // when the row is complete, because appending to scratch may move its buffer.
  fields.clear();
  scratch.clear();
  struct Unescaped {
    std::size_t field, start, length;
  };
  thread_local std::vector<Unescaped> unescaped;
  unescaped.clear();
  const std::size_t size = bytes_.size();
  const char* data = bytes_.data();
  std::size_t pos = offset;
  std::size_t next = size;
  while (true) {
    bool at_row_end = false;
    if (pos < size && data[pos] == '"') {
      std::size_t start = ++pos;
      bool escaped = false;
      const std::size_t scratch_start = scratch.size();
      while (true) {
        const void* q = std::memchr(data + pos, '"', size - pos);
        if (q == nullptr) return kUnterminatedQuote;
        const auto qpos = static_cast<std::size_t>(static_cast<const char*>(q) - data);
        if (qpos + 1 < size && data[qpos + 1] == '"') {
          escaped = true;
          scratch.append(data + start, qpos - start + 1);
          pos = start = qpos + 2;
          continue;
        }
        if (escaped) {
          scratch.append(data + start, qpos - start);
          unescaped.push_back({fields.size(), scratch_start, scratch.size() - scratch_start});
          fields.emplace_back();
        } else {
          fields.emplace_back(data + start, qpos - start);
        }
        pos = qpos + 1;
        break;
      }
      if (pos < size && data[pos] != delimiter_ && data[pos] != '\n' && data[pos] != '\r')
        return kTextAfterQuote;
    } else {
      const std::size_t start = pos;
      while (pos < size && data[pos] != delimiter_ && data[pos] != '\n' && data[pos] != '\r') ++pos;
      fields.emplace_back(data + start, pos - start);
    }
    if (pos >= size) {
      next = size;
      at_row_end = true;
    } else if (data[pos] == delimiter_) {
      ++pos;
    } else {
      next = (data[pos] == '\r' && pos + 1 < size && data[pos + 1] == '\n') ? pos + 2 : pos + 1;
      at_row_end = true;
    }
    if (at_row_end) break;
  }
  for (const auto& u : unescaped)
    fields[u.field] = std::string_view(scratch.data() + u.start, u.length);
  return next;
}

void CsvFile::index_rows() {
  std::size_t pos = 0;
  if (bytes_.size() >= 3 && bytes_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;
  auto blank_from = [&](std::size_t p) {
    return std::all_of(bytes_.begin() + static_cast<std::ptrdiff_t>(p), bytes_.end(),
                       [](char c) { return c == '\n' || c == '\r'; });
  };
  if (blank_from(pos)) throw InputError(path_ + ": file is empty");
  std::vector<std::string_view> fields;
  std::string scratch;
  std::size_t line = 1;
  auto lines_in = [&](std::size_t from, std::size_t to) {
    return static_cast<std::size_t>(std::count(bytes_.begin() + static_cast<std::ptrdiff_t>(from),
                                               bytes_.begin() + static_cast<std::ptrdiff_t>(to),
                                               '\n'));
  };
  auto check = [&](std::size_t next, std::size_t row_label) {
    if (next == kUnterminatedQuote)
      throw InputError(
          path_ + ": " +
          (row_label == 0 ? std::string("header") : "row " + std::to_string(row_label)) +
          " (line " + std::to_string(line) + "): unterminated quoted field");
    if (next == kTextAfterQuote)
      throw InputError(
          path_ + ": " +
          (row_label == 0 ? std::string("header") : "row " + std::to_string(row_label)) +
          " (line " + std::to_string(line) + "): text after a closing quote");
  };
  std::size_t next = tokenize(pos, fields, scratch);
  check(next, 0);
  header_.clear();
  std::unordered_set<std::string> seen;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    std::string name(fields[i]);
    if (!valid_utf8(name))
      throw InputError(path_ + ": header column " + std::to_string(i + 1) + " is not valid UTF-8");
    if (name.empty())
      throw InputError(path_ + ": header column " + std::to_string(i + 1) + " has an empty name");
    if (!seen.insert(name).second)
      throw InputError(path_ + ": duplicate column name '" + name + "' in the header");
    header_.push_back(std::move(name));
  }
  line += lines_in(pos, next);
  pos = next;
  data_start_ = pos;
  row_starts_.clear();
  const std::size_t expected = header_.size();
  while (pos < bytes_.size()) {
    // Blank lines (only a line break) are skipped, as R's read.csv and pandas do.
    if (bytes_[pos] == '\n' || bytes_[pos] == '\r') {
      if (bytes_[pos] == '\n') ++line;
      ++pos;
      continue;
    }
    const std::size_t row_label = row_starts_.size() + 1;
    next = tokenize(pos, fields, scratch);
    check(next, row_label);
    if (fields.size() != expected)
      throw InputError(path_ + ": row " + std::to_string(row_label) + " (line " +
                       std::to_string(line) + ") has " + std::to_string(fields.size()) +
                       " fields, header has " + std::to_string(expected));
    row_starts_.push_back(pos);
    line += lines_in(pos, next);
    pos = next;
  }
  if (row_starts_.empty()) throw InputError(path_ + ": header only, no data rows");
}

void CsvFile::visit_rows(const RowVisitor& visit) const {
  const std::size_t n = row_starts_.size();
  const int workers = static_cast<int>(std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(threads_), n / 4096 + 1)));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(workers));
  auto work = [&](int t) {
    const std::size_t begin = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(workers);
    const std::size_t end = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(workers);
    std::vector<std::string_view> fields;
    fields.reserve(header_.size());
    std::string scratch;
    try {
      for (std::size_t r = begin; r < end; ++r) {
        tokenize(row_starts_[r], fields, scratch);
        visit(t, r, fields);
      }
    } catch (...) {
      errors[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  if (workers == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (int t = 1; t < workers; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace synthaudit
