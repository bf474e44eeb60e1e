#include "io/csv.hpp"

#include <openssl/evp.h>
#include <zlib.h>

#if defined(__AVX2__) || defined(__AVX512BW__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/threads.hpp"
#include "core/worker_threads.hpp"
#include "io/file.hpp"

namespace synthaudit {

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  return hex_digest(digest, length);
}

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(std::string_view compressed, const std::string& path, std::uint64_t max_bytes,
                   std::uint64_t memory_budget) {
  ResourceLimits budget;
  budget.memory = memory_budget;
  const AvailableMemory memory = available_memory(budget);
  // The output grows by doubling: the old and the new buffer are held at once.
  auto grow_to = [&](std::string& out, std::size_t bytes, std::size_t produced) {
    if (out.size() + bytes > memory.bytes)
      throw InputError(path + ": decompresses to more than " + format_bytes(produced) +
                       ", and holding more needs more than the " + format_bytes(memory.bytes) +
                       " of memory available (bounded by " + memory.bound +
                       "); decompress it elsewhere, or use a machine with more memory");
    out.resize(bytes);
  };
  z_stream stream{};
  // 15 + 32: zlib or gzip header, detected automatically.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) throw InputError(path + ": cannot start gzip");
  struct StreamEnd {
    z_stream& stream;
    ~StreamEnd() { inflateEnd(&stream); }
  } end{stream};
  std::string out;
  grow_to(out,
          static_cast<std::size_t>(std::min<std::uint64_t>(
              std::max<std::size_t>(compressed.size() * 4, 1 << 16), max_bytes + 1)),
          0);
  // zlib counts in 32 bits: the input is fed in pieces.
  std::size_t fed = 0;
  auto feed = [&] {
    if (stream.avail_in > 0 || fed == compressed.size()) return;
    const std::size_t piece = std::min<std::size_t>(compressed.size() - fed, 1u << 30);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + fed));
    stream.avail_in = static_cast<uInt>(piece);
    fed += piece;
  };
  std::size_t produced = 0;
  int status = Z_OK;
  while (true) {
    feed();
    if (produced > max_bytes)
      throw InputError(path + ": decompresses to more than " + format_bytes(max_bytes) +
                       " (limit input_bytes; raise it with --limit input_bytes=SIZE)");
    if (produced == out.size())
      grow_to(out, static_cast<std::size_t>(std::min<std::uint64_t>(out.size() * 2, max_bytes + 1)),
              produced);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - produced, 1u << 30));
    if (stream.avail_out == 0) continue;  // full at the bound: the check above ends it
    const uInt before = stream.avail_out;
    status = inflate(&stream, Z_NO_FLUSH);
    produced += before - stream.avail_out;
    if (status == Z_STREAM_END) {
      // Concatenated gzip members are valid gzip: continue with the next one.
      if (stream.avail_in > 0 || fed < compressed.size()) {
        inflateReset(&stream);
        continue;
      }
      break;
    }
    if (status != Z_OK && status != Z_BUF_ERROR) throw InputError(path + ": corrupt gzip data");
    if (status == Z_BUF_ERROR && stream.avail_in == 0 && fed == compressed.size())
      throw InputError(path + ": truncated gzip data");
  }
  out.resize(produced);
  return out;
}

namespace {

// Offset of the first delimiter, '\n' or '\r' at or after `pos` (or `size`). Hand-written with
// SSE2 (x86-64 baseline) rather than a per-byte loop: it runs once per unquoted field in every
// pass, and 16 bytes usually cover a whole survey field, so the field end is found without a
// branch per byte. Other targets take the scalar loop.
inline std::size_t field_end(const char* data, std::size_t pos, std::size_t size, char delimiter) {
#if defined(__SSE2__)
  const __m128i d = _mm_set1_epi8(delimiter);
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  while (pos + 16 <= size) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + pos));
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, d), _mm_cmpeq_epi8(chunk, nl)),
                     _mm_cmpeq_epi8(chunk, cr));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return pos + static_cast<std::size_t>(__builtin_ctz(mask));
    pos += 16;
  }
#endif
  while (pos < size && data[pos] != delimiter && data[pos] != '\n' && data[pos] != '\r') ++pos;
  return pos;
}

// Bit i of each mask: byte i of a block is a delimiter, a line break ('\n' or '\r'), a quote.
// Blocks are 64 bytes where the target has AVX-512BW (one compare into a mask register each;
// -march=native on such a machine), else 32.
#if defined(__AVX512BW__)
using BlockMask = std::uint64_t;
#else
using BlockMask = std::uint32_t;
#endif
constexpr std::size_t kBlockBytes = sizeof(BlockMask) * 8;
struct BlockMasks {
  BlockMask delimiters, line_breaks, quotes;
};

inline BlockMasks block_masks(const char* block, char delimiter) {
#if defined(__AVX512BW__)
  const __m512i chunk = _mm512_loadu_si512(block);
  return {_mm512_cmpeq_epi8_mask(chunk, _mm512_set1_epi8(delimiter)),
          _mm512_cmpeq_epi8_mask(chunk, _mm512_set1_epi8('\n')) |
              _mm512_cmpeq_epi8_mask(chunk, _mm512_set1_epi8('\r')),
          _mm512_cmpeq_epi8_mask(chunk, _mm512_set1_epi8('"'))};
#elif defined(__AVX2__)
  // One 32-byte load and three compares where the target has AVX2 (-march=native on x86-64).
  const __m256i chunk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
  const auto mask = [&](__m256i hits) {
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(hits));
  };
  return {mask(_mm256_cmpeq_epi8(chunk, _mm256_set1_epi8(delimiter))),
          mask(_mm256_or_si256(_mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('\n')),
                               _mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('\r')))),
          mask(_mm256_cmpeq_epi8(chunk, _mm256_set1_epi8('"')))};
#elif defined(__SSE2__)
  const __m128i d = _mm_set1_epi8(delimiter);
  const __m128i nl = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  const __m128i q = _mm_set1_epi8('"');
  BlockMasks m{0, 0, 0};
  for (int half = 0; half < 2; ++half) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * half));
    const int shift = 16 * half;
    m.delimiters |= static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, d)))
                    << shift;
    m.line_breaks |= static_cast<std::uint32_t>(_mm_movemask_epi8(
                         _mm_or_si128(_mm_cmpeq_epi8(chunk, nl), _mm_cmpeq_epi8(chunk, cr))))
                     << shift;
    m.quotes |= static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, q))) << shift;
  }
  return m;
#else
  BlockMasks m{0, 0, 0};
  for (int i = 0; i < 32; ++i) {
    const std::uint32_t bit = std::uint32_t{1} << i;
    if (block[i] == delimiter) m.delimiters |= bit;
    if (block[i] == '\n' || block[i] == '\r') m.line_breaks |= bit;
    if (block[i] == '"') m.quotes |= bit;
  }
  return m;
#endif
}

}  // namespace

int resolve_reader_threads(int requested) {
  return requested > 0 ? std::min(requested, kMaxThreadsPerCall) : hardware_threads();
}

void DataFile::visit_row_batches(const BatchVisitor& visit) const {
  visit_rows([&](int t, std::size_t row, const std::vector<std::string_view>& fields) {
    visit(t, RowBatch{row, 1, fields.data(), fields.size(), 0});
  });
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

TextEncoding parse_text_encoding(const std::string& text, const std::string& where) {
  std::string key;
  for (const char c : text) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key == "utf-8" || key == "utf8") return TextEncoding::kUtf8;
  if (key == "latin1" || key == "latin-1" || key == "iso-8859-1" || key == "iso8859-1" ||
      key == "windows-1252" || key == "cp1252")
    return TextEncoding::kWindows1252;
  throw InputError(where + ": '" + text +
                   "' is not an encoding synthaudit reads; use utf-8, latin1 or windows-1252");
}

const char* to_string(TextEncoding encoding) {
  return encoding == TextEncoding::kUtf8 ? "utf-8" : "windows-1252";
}

std::string windows1252_to_utf8(std::string_view bytes) {
  // Code points of bytes 0x80-0x9F (WHATWG index-windows-1252); the rest equal their byte.
  static constexpr char16_t kHigh[32] = {
      0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
      0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
      0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 8);
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out += c;
      continue;
    }
    const unsigned code = byte < 0xA0 ? kHigh[byte - 0x80] : byte;
    if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  return out;
}

namespace {

// "[+-]digits<mark>digits" with at least one digit after the mark.
bool looks_like_decimal(std::string_view field, char mark) {
  std::size_t i = 0;
  if (i < field.size() && (field[i] == '-' || field[i] == '+')) ++i;
  while (i < field.size() && field[i] >= '0' && field[i] <= '9') ++i;
  if (i >= field.size() || field[i] != mark) return false;
  const std::size_t after = ++i;
  while (i < field.size() && field[i] >= '0' && field[i] <= '9') ++i;
  return i == field.size() && i > after;
}

// The fields of the first line of `text` split by `delimiter` (quotes respected), and whether
// every one of them is quoted.
std::size_t header_fields(std::string_view text, char delimiter, bool& all_quoted) {
  std::size_t fields = 1;
  bool in_quotes = false;
  bool at_field_start = true;
  all_quoted = true;
  for (const char c : text) {
    if (in_quotes) {
      if (c == '"') in_quotes = false;  // "" re-enters at the next quote
      continue;
    }
    if (at_field_start) {
      at_field_start = false;
      if (c != '"') all_quoted = false;
    }
    if (c == '"') {
      in_quotes = true;
    } else if (c == '\n' || c == '\r') {
      break;
    } else if (c == delimiter) {
      ++fields;
      at_field_start = true;
    }
  }
  return fields;
}

std::string delimiter_in_words(char delimiter) {
  switch (delimiter) {
    case ';':
      return "semicolon-separated";
    case '\t':
      return "tab-separated";
    case ' ':
      return "space-separated";
    default:
      return std::string("'") + delimiter + "'-separated";
  }
}

}  // namespace

bool looks_like_decimal_comma_number(std::string_view field) {
  return looks_like_decimal(field, ',');
}

// The bytes of one file, owned: read from a file or pipe, decompressed, or given in memory.
struct CsvFile::Storage {
  std::string owned;
  ByteBuffer buffer;
  const char* data = nullptr;
  std::size_t size = 0;

  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void use_owned() {
    data = owned.data();
    size = owned.size();
  }
  void use_buffer() {
    data = buffer.data();
    size = buffer.size();
  }
};

CsvFile CsvFile::open(const std::string& path, const CsvOptions& options) {
  return from_input(
      read_input_file_hashed(path, options.max_input_bytes, options.pipe_wait_seconds), path,
      options);
}

CsvFile CsvFile::from_input(HashedInput input, const std::string& path, const CsvOptions& options) {
  const std::string_view raw = input.bytes.view();
  if (is_gzip(raw) || options.encoding != TextEncoding::kUtf8) {
    // The fingerprint is of the bytes as stored; the text is decompressed or converted.
    std::string digest = input.sha256.get();
    std::string text = is_gzip(raw)
                           ? gunzip(raw, path, options.max_input_bytes, options.memory_budget)
                           : std::string(raw);
    input.bytes = ByteBuffer();
    return from_bytes(std::move(text), path, options, std::move(digest));
  }
  auto storage = std::make_shared<Storage>();
  storage->buffer = std::move(input.bytes);
  storage->use_buffer();
  try {
    CsvFile file = build(storage, path, options);
    file.sha256_ = input.sha256.get();
    return file;
  } catch (...) {
    // The hashing thread reads the buffer that `storage` now owns.
    if (input.sha256.valid()) input.sha256.wait();
    throw;
  }
}

CsvFile CsvFile::from_bytes(std::string bytes, const std::string& name, const CsvOptions& options,
                            std::string sha256) {
  if (sha256.empty()) sha256 = sha256_hex(bytes);
  // The fingerprint is of the bytes as stored; the text read is UTF-8.
  if (options.encoding == TextEncoding::kWindows1252 &&
      std::any_of(bytes.begin(), bytes.end(), [](char c) { return (c & 0x80) != 0; }))
    bytes = windows1252_to_utf8(bytes);
  auto storage = std::make_shared<Storage>();
  storage->owned = std::move(bytes);
  storage->use_owned();
  CsvFile file = build(std::move(storage), name, options);
  file.sha256_ = std::move(sha256);
  return file;
}

CsvFile CsvFile::build(std::shared_ptr<Storage> storage, const std::string& name,
                       const CsvOptions& options) {
  if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r')
    throw InputError(name + ": the delimiter cannot be a quote or a line break");
  if (options.decimal != 0 && options.decimal != '.' && options.decimal != ',')
    throw InputError(name + ": the decimal mark must be '.' or ','");
  CsvFile file;
  file.path_ = name;
  file.delimiter_ = options.delimiter;
  if (file.delimiter_ == 0) {
    std::string_view text(storage->data, storage->size);
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    bool quoted = false;
    std::size_t most = header_fields(text, ',', quoted);
    file.delimiter_ = ',';
    // A decimal comma rules the comma out as the separator.
    if (options.decimal == ',') most = 0;
    for (const char candidate : {';', '\t'}) {
      const std::size_t fields = header_fields(text, candidate, quoted);
      if (fields > most) {
        most = fields;
        file.delimiter_ = candidate;
      }
    }
    if (most <= 1 && header_fields(text, ' ', quoted) > 1 && quoted) file.delimiter_ = ' ';
    if (file.delimiter_ != ',') file.assumed_ = "read as " + delimiter_in_words(file.delimiter_);
  }
  if (options.decimal == ',' && file.delimiter_ == ',')
    throw InputError(name +
                     ": the decimal mark and the delimiter are both ','; give the delimiter "
                     "(--delimiter ';' or read: delimiter in the spec)");
  file.threads_ = resolve_reader_threads(options.threads);
  file.max_field_bytes_ = options.max_field_bytes;
  file.max_columns_ = options.max_columns;
  file.data_ = storage->data;
  file.size_ = storage->size;
  file.storage_ = std::move(storage);
  file.index_rows(options.structure_piece_bytes);
  file.decimal_ = options.decimal;
  if (file.decimal_ == 0) file.detect_decimal_mark();
  if (!file.assumed_.empty())
    file.assumed_ +=
        " (detected; say otherwise with --delimiter and --decimal, or read: delimiter and decimal "
        "in the spec)";
  if (file.row_names_)
    file.assumed_ += std::string(file.assumed_.empty() ? "" : "; ") +
                     "the first column has no name in the header: read as row names (R's "
                     "write.csv and write.table, pandas' to_csv) and left out";
  return file;
}

std::size_t CsvFile::size() const { return size_; }

void CsvFile::detect_decimal_mark() {
  decimal_ = '.';
  if (delimiter_ == ',') return;
  // The first rows decide: enough to see a decimal number in most data, and a fixed cost.
  constexpr std::size_t kSampleRows = 2000;
  std::size_t comma = 0, point = 0;
  std::vector<std::string_view> fields;
  std::string scratch;
  for (std::size_t r = 0; r < std::min(kSampleRows, row_starts_.size()); ++r) {
    tokenize(row_starts_[r], fields, scratch);
    for (const auto field : fields) {
      if (looks_like_decimal(field, ','))
        ++comma;
      else if (looks_like_decimal(field, '.'))
        ++point;
    }
  }
  if (comma > 0 && point == 0) {
    decimal_ = ',';
    assumed_ += std::string(assumed_.empty() ? "read" : "") + " with a decimal comma";
  }
}

std::size_t CsvFile::tokenize(std::size_t offset, std::vector<std::string_view>& fields,
                              std::string& scratch) const {
  fields.clear();
  scratch.clear();
  thread_local std::vector<Unescaped> unescaped;
  unescaped.clear();
  const std::size_t next = append_fields(offset, fields, scratch, unescaped);
  patch_unescaped(fields, scratch, unescaped);
  return next;
}

void CsvFile::patch_unescaped(std::vector<std::string_view>& fields, const std::string& scratch,
                              const std::vector<Unescaped>& unescaped) {
  for (const auto& u : unescaped)
    fields[u.field] = std::string_view(scratch.data() + u.start, u.length);
}

std::size_t CsvFile::append_fields(std::size_t offset, std::vector<std::string_view>& fields,
                                   std::string& scratch, std::vector<Unescaped>& unescaped) const {
  // Quoted fields containing "" are unescaped into `scratch`. Their views are patched in only
  // when the caller is done appending, because appending to scratch may move its buffer.
  const std::size_t size = size_;
  const char* data = data_;
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
      // A run of unquoted fields up to the row's end or a quote that opens a field, split at
      // the delimiters of 64- or 32-byte blocks (as scan_row counts them).
      const char delimiter = delimiter_;
      const std::size_t run_start = pos;
      std::size_t field_start = pos;
      std::size_t stop = size;
      while (pos + kBlockBytes <= size) {
        const BlockMasks m = block_masks(data + pos, delimiter);
        const BlockMask after_delimiter =
            (m.delimiters << 1) | (pos > run_start && data[pos - 1] == delimiter ? 1u : 0u);
        const BlockMask stops = m.line_breaks | (m.quotes & after_delimiter);
        BlockMask delimiters = stops == 0
                                   ? m.delimiters
                                   : m.delimiters & ((BlockMask{1} << std::countr_zero(stops)) - 1);
        while (delimiters != 0) {
          const std::size_t at = pos + static_cast<std::size_t>(std::countr_zero(delimiters));
          fields.emplace_back(data + field_start, at - field_start);
          field_start = at + 1;
          delimiters &= delimiters - 1;
        }
        if (stops != 0) {
          stop = pos + static_cast<std::size_t>(std::countr_zero(stops));
          break;
        }
        pos += kBlockBytes;
      }
      if (stop == size) {
        for (; pos < size; ++pos) {
          const char c = data[pos];
          if (c == '\n' || c == '\r' ||
              (c == '"' && pos > run_start && data[pos - 1] == delimiter)) {
            stop = pos;
            break;
          }
          if (c == delimiter) {
            fields.emplace_back(data + field_start, pos - field_start);
            field_start = pos + 1;
          }
        }
      }
      pos = stop;
      // A quote opening a field: its delimiter was the last split, the quoted field follows.
      if (pos < size && data[pos] == '"') continue;
      fields.emplace_back(data + field_start, pos - field_start);
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
  return next;
}

std::size_t CsvFile::scan_row(std::size_t offset, std::size_t& fields, std::size_t& newlines,
                              std::size_t& longest) const {
  // The same grammar as tokenize, without building fields: the structure check of open() runs
  // over every byte once. Unquoted text is scanned a block at a time (delimiters counted from
  // a bit mask), quoted fields with memchr. `longest` is exact for quoted fields; for a run of
  // unquoted fields it is the run's length, a bound that exceeds max_field_bytes_ only when
  // the run is then measured field by field, so it exceeds the limit exactly when a field does.
  const char* data = data_;
  const std::size_t size = size_;
  const char delimiter = delimiter_;
  std::size_t pos = offset;
  fields = 1;
  longest = 0;
  auto row_end = [&](std::size_t at) {
    return (data[at] == '\r' && at + 1 < size && data[at + 1] == '\n') ? at + 2 : at + 1;
  };
  while (true) {
    if (pos < size && data[pos] == '"') {
      const std::size_t field_start = pos++;
      while (true) {
        const void* q = std::memchr(data + pos, '"', size - pos);
        if (q == nullptr) return kUnterminatedQuote;
        const auto qpos = static_cast<std::size_t>(static_cast<const char*>(q) - data);
        newlines += static_cast<std::size_t>(std::count(data + pos, data + qpos, '\n'));
        pos = qpos + 1;
        if (pos < size && data[pos] == '"') {
          ++pos;
          continue;
        }
        break;
      }
      longest = std::max(longest, pos - field_start);
      if (pos >= size) return size;
      if (data[pos] == delimiter) {
        ++pos;
        ++fields;
        continue;
      }
      if (data[pos] != '\n' && data[pos] != '\r') return kTextAfterQuote;
      return row_end(pos);
    }
    // A run of unquoted fields, up to the row's end or a quote that opens a field (a quote
    // inside an unquoted field is text).
    const std::size_t run_start = pos;
    std::size_t stop = size;
    while (pos + kBlockBytes <= size) {
      const BlockMasks m = block_masks(data + pos, delimiter);
      const BlockMask after_delimiter =
          (m.delimiters << 1) | (pos > run_start && data[pos - 1] == delimiter ? 1u : 0u);
      const BlockMask stops = m.line_breaks | (m.quotes & after_delimiter);
      if (stops != 0) {
        const int at = std::countr_zero(stops);
        fields += static_cast<std::size_t>(
            std::popcount(static_cast<BlockMask>(m.delimiters & ((BlockMask{1} << at) - 1))));
        stop = pos + static_cast<std::size_t>(at);
        break;
      }
      fields += static_cast<std::size_t>(std::popcount(m.delimiters));
      pos += kBlockBytes;
    }
    if (stop == size) {
      for (; pos < size; ++pos) {
        const char c = data[pos];
        if (c == '\n' || c == '\r' || (c == '"' && pos > run_start && data[pos - 1] == delimiter)) {
          stop = pos;
          break;
        }
        if (c == delimiter) ++fields;
      }
    }
    if (stop - run_start > max_field_bytes_) {
      // Rare: a run longer than the field limit is measured field by field.
      for (std::size_t start = run_start; start < stop;) {
        const std::size_t end = std::min(field_end(data, start, stop, delimiter), stop);
        longest = std::max(longest, end - start);
        start = end + 1;
      }
    } else {
      longest = std::max(longest, stop - run_start);
    }
    pos = stop;
    if (pos >= size) return size;
    if (data[pos] != '"') return row_end(pos);
  }
}

void CsvFile::scan_rows(std::size_t begin, std::size_t limit, std::size_t expected,
                        RowScan& out) const {
  out.begin = begin;
  out.lines = 0;
  out.problem = RowProblem::kNone;
  out.starts.clear();
  // About 1 row per 100 bytes is a fair first guess for survey data; the vector grows if not.
  out.starts.reserve((limit > begin ? limit - begin : 0) / 100 + 16);
  const char* data = data_;
  std::size_t pos = begin;
  std::size_t lines = 0;
  while (pos < limit) {
    // Blank lines (only a line break) are skipped, as R's read.csv and pandas do.
    if (data[pos] == '\n' || data[pos] == '\r') {
      if (data[pos] == '\n') ++lines;
      ++pos;
      continue;
    }
    std::size_t count = 0, newlines = 0, longest = 0;
    const std::size_t next = scan_row(pos, count, newlines, longest);
    if (next == kUnterminatedQuote) {
      out.problem = RowProblem::kUnterminatedQuote;
    } else if (next == kTextAfterQuote) {
      out.problem = RowProblem::kTextAfterQuote;
    } else if (longest > max_field_bytes_) {
      out.problem = RowProblem::kLongField;
    } else if (count != expected) {
      out.problem = RowProblem::kFieldCount;
      out.fields = count;
    }
    if (out.problem != RowProblem::kNone) break;
    out.starts.push_back(pos);
    lines += newlines + (data[next - 1] == '\n' || data[next - 1] == '\r' ? 1 : 0);
    pos = next;
  }
  out.end = pos;
  out.lines = lines;
}

void CsvFile::throw_row_problem(const RowScan& scan, std::size_t row_label, std::size_t line,
                                std::size_t expected) const {
  const std::string where =
      path_ + ": row " + std::to_string(row_label) + " (line " + std::to_string(line) + ")";
  switch (scan.problem) {
    case RowProblem::kUnterminatedQuote:
      throw InputError(where + ": unterminated quoted field");
    case RowProblem::kTextAfterQuote:
      throw InputError(where + ": text after a closing quote");
    case RowProblem::kLongField: {
      // Rare: find the column to name it.
      std::vector<std::string_view> row_fields;
      std::string row_scratch;
      tokenize(scan.end, row_fields, row_scratch);
      std::size_t column = 0;
      for (std::size_t c = 1; c < row_fields.size(); ++c)
        if (row_fields[c].size() > row_fields[column].size()) column = c;
      const bool named = !(row_names_ && column == 0);
      const std::size_t named_column = column - (row_names_ ? 1 : 0);
      throw InputError(where + ", column '" +
                       (named && named_column < header_.size() ? header_[named_column]
                                                               : std::to_string(column + 1)) +
                       "': a field is longer than " + format_bytes(max_field_bytes_) +
                       " (limit field_bytes; raise it with --limit field_bytes=SIZE)");
    }
    case RowProblem::kFieldCount:
      throw InputError(where + " has " + std::to_string(scan.fields) + " fields, header has " +
                       std::to_string(expected) + (row_names_ ? " (with the row names)" : ""));
    case RowProblem::kNone:
      break;
  }
  throw std::logic_error("throw_row_problem without a problem");
}

void CsvFile::index_rows(std::uint64_t piece_bytes) {
  std::size_t pos = 0;
  const std::string_view bytes(data_, size_);
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;
  if (bytes.find_first_not_of("\r\n", pos) == std::string_view::npos)
    throw InputError(path_ + ": file is empty");
  std::vector<std::string_view> fields;
  std::string scratch;
  std::size_t next = tokenize(pos, fields, scratch);
  if (next == kUnterminatedQuote)
    throw InputError(path_ + ": header (line 1): unterminated quoted field");
  if (next == kTextAfterQuote)
    throw InputError(path_ + ": header (line 1): text after a closing quote");
  if (fields.size() > max_columns_)
    throw InputError(path_ + ": header has " + std::to_string(fields.size()) +
                     " columns, more than the limit of " + std::to_string(max_columns_) +
                     " (raise it with --limit columns=N)");
  header_.clear();
  std::unordered_set<std::string> seen;
  // R's write.csv and pandas' to_csv write row names under an empty first name.
  row_names_ = fields.size() > 1 && fields[0].empty();
  for (std::size_t i = row_names_ ? 1 : 0; i < fields.size(); ++i) {
    std::string name(fields[i]);
    if (!valid_utf8(name))
      throw InputError(path_ + ": header column " + std::to_string(i + 1) +
                       " is not valid UTF-8 (if the file is Latin-1 or Windows-1252, give "
                       "--encoding latin1, or read: encoding: latin1 in the spec)");
    if (name.empty())
      throw InputError(path_ + ": header column " + std::to_string(i + 1) + " has an empty name");
    if (name.size() > max_field_bytes_)
      throw InputError(path_ + ": header column " + std::to_string(i + 1) + " is longer than " +
                       format_bytes(max_field_bytes_) +
                       " (limit field_bytes; raise it with --limit field_bytes=SIZE)");
    if (!seen.insert(name).second)
      throw InputError(path_ + ": duplicate column name '" + name + "' in the header");
    header_.push_back(std::move(name));
  }
  std::size_t line = 1 + static_cast<std::size_t>(std::count(data_ + pos, data_ + next, '\n'));
  data_start_ = next;
  const std::size_t size = size_;
  const char* data = data_;
  std::size_t expected = header_.size() + (row_names_ ? 1 : 0);
  // R's write.table writes row names without a name: the header is one field shorter than the
  // first row. Decided before the rows are split, as every piece needs the field count.
  if (!row_names_ && expected > 0) {
    std::size_t first = data_start_;
    while (first < size && (data[first] == '\n' || data[first] == '\r')) ++first;
    if (first < size) {
      std::size_t count = 0, newlines = 0, longest = 0;
      const std::size_t end = scan_row(first, count, newlines, longest);
      if (end != kUnterminatedQuote && end != kTextAfterQuote && count == expected + 1) {
        row_names_ = true;
        ++expected;
      }
    }
  }

  // The pieces [bounds[i], bounds[i + 1]) of the text after the header.
  const std::size_t text = size - data_start_;
  if (piece_bytes == 0) {
    constexpr std::size_t kMinPiece = std::size_t{1} << 20;
    const std::size_t pieces =
        threads_ <= 1
            ? 1
            : std::clamp<std::size_t>(text / kMinPiece, 1, 8 * static_cast<std::size_t>(threads_));
    piece_bytes = std::max<std::uint64_t>(1, (text + pieces - 1) / pieces);
  }
  std::vector<std::size_t> bounds{data_start_};
  while (size - bounds.back() > piece_bytes)
    bounds.push_back(bounds.back() + static_cast<std::size_t>(piece_bytes));
  bounds.push_back(size);
  const std::size_t piece_count = bounds.size() - 1;
  std::vector<RowScan> scans(piece_count);
  // Where a piece's first row would start if no quoted field were open at its bound: after the
  // first '\n' (or lone '\r') at or after it. A row ending in "\r\n" ends after the '\n'.
  auto speculative_begin = [&](std::size_t bound) {
    std::size_t at = bound;
    while (at < size) {
      const char before = data[at - 1];
      if (before == '\n' || (before == '\r' && data[at] != '\n')) break;
      ++at;
    }
    return at;
  };
  auto scan_piece = [&](std::size_t i) {
    const std::size_t begin = i == 0 ? bounds[0] : speculative_begin(bounds[i]);
    scan_rows(begin, bounds[i + 1], expected, scans[i]);
  };
  const auto workers = static_cast<std::size_t>(
      std::min<std::size_t>(static_cast<std::size_t>(std::max(threads_, 1)), piece_count));
  run_items_on_threads(piece_count, workers, scan_piece);
  // In order: a piece whose rows did not start where the previous piece's rows end began inside
  // a quoted field (or mid-way through a "\r\n" blank line) and is scanned again from there.
  // Such a piece costs two scans; its first, wrong one stops at its first error or its end, but
  // a quote it takes as opening a field is searched for its close with memchr, possibly to the
  // end of the file: crafted text can cost one such search per piece, never a hang.
  std::size_t at = data_start_;
  std::size_t rows = 0;
  for (std::size_t i = 0; i < piece_count; ++i) {
    RowScan& scan = scans[i];
    if (scan.begin != at) scan_rows(at, bounds[i + 1], expected, scan);
    if (scan.problem != RowProblem::kNone)
      throw_row_problem(scan, rows + scan.starts.size() + 1, line + scan.lines, expected);
    rows += scan.starts.size();
    line += scan.lines;
    at = scan.end;
  }
  if (rows == 0) throw InputError(path_ + ": header only, no data rows");
  if (piece_count == 1) {
    row_starts_ = std::move(scans[0].starts);
  } else {
    row_starts_.clear();
    row_starts_.reserve(rows);
    for (const RowScan& scan : scans)
      row_starts_.insert(row_starts_.end(), scan.starts.begin(), scan.starts.end());
  }
}

namespace {

// Threads that visit `rows` rows: one per 4,096 rows at most, so small files stay on one thread.
std::size_t visiting_threads(std::size_t rows, int threads) {
  return std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(threads), rows / 4096 + 1));
}

}  // namespace

void CsvFile::visit_rows(const RowVisitor& visit) const {
  const std::size_t n = row_starts_.size();
  const std::size_t workers = visiting_threads(n, threads_);
  run_on_threads(workers, [&](std::size_t t) {
    const std::size_t begin = n * t / workers;
    const std::size_t end = n * (t + 1) / workers;
    std::vector<std::string_view> fields;
    fields.reserve(header_.size());
    std::string scratch;
    for (std::size_t r = begin; r < end; ++r) {
      tokenize(row_starts_[r], fields, scratch);
      if (row_names_) fields.erase(fields.begin());
      visit(static_cast<int>(t), r, fields);
    }
  });
}

void CsvFile::visit_row_batches(const BatchVisitor& visit) const {
  // A batch's views and unescaped text take a few tens of KiB at survey widths: they stay in
  // the core's caches while the decoder goes over them column by column.
  const std::size_t n = row_starts_.size();
  const std::size_t stride = header_.size() + (row_names_ ? 1 : 0);
  const std::size_t kBatchRows =
      std::clamp<std::size_t>(4096 / std::max<std::size_t>(stride, 1), 1, 128);
  const std::size_t workers = visiting_threads(n, threads_);
  run_on_threads(workers, [&](std::size_t t) {
    const std::size_t begin = n * t / workers;
    const std::size_t end = n * (t + 1) / workers;
    std::vector<std::string_view> fields;
    fields.reserve(kBatchRows * stride);
    std::string scratch;
    std::vector<Unescaped> unescaped;
    for (std::size_t first = begin; first < end; first += kBatchRows) {
      const std::size_t rows = std::min(kBatchRows, end - first);
      fields.clear();
      scratch.clear();
      unescaped.clear();
      // Every row has `stride` fields: the structure check counted them.
      for (std::size_t r = first; r < first + rows; ++r)
        append_fields(row_starts_[r], fields, scratch, unescaped);
      patch_unescaped(fields, scratch, unescaped);
      visit(static_cast<int>(t),
            RowBatch{first, rows, fields.data(), stride, row_names_ ? 1u : 0u});
    }
  });
}

}  // namespace synthaudit
