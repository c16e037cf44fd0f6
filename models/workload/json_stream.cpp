#include "models/workload/json_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <set>

#include "sim/errors.h"
#include "sim/json_file.h"

namespace t3sim::workload {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr std::uint64_t kMaxStringBytes = std::uint64_t{16} << 20;  // as sim/json_file.cpp

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

FilePtr open_file(const std::filesystem::path& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    const int err = errno;
    throw ConfigError(path.string(), "",
                      std::string("cannot open the file: ") + std::strerror(err) +
                          (err == EACCES ? " (check its permissions)" : " (check the path)"));
  }
  return f;
}

// The file's bytes in chunks; refuses a string literal over kMaxStringBytes as its bytes pass, so
// the lexer never holds one.
class ChunkReader {
 public:
  explicit ChunkReader(const std::filesystem::path& path)
      : file_(open_file(path)), name_(path.string()), buf_(kChunkBytes) {}

  bool at_end() {
    if (pos_ < len_) return false;
    len_ = std::fread(buf_.data(), 1, buf_.size(), file_.get());
    pos_ = 0;
    if (len_ == 0 && std::ferror(file_.get())) {
      throw ConfigError(name_, "", "cannot read the file (check permissions)");
    }
    return len_ == 0;
  }
  char current() const { return buf_[pos_]; }
  void advance() {
    track(buf_[pos_++]);
    ++offset_;
  }

 private:
  void track(char c) {
    if (!in_string_) {
      if (c == '"') in_string_ = true, start_ = offset_, run_ = 0;
      return;
    }
    if (escape_) {
      escape_ = false;
    } else if (c == '\\') {
      escape_ = true;
    } else if (c == '"') {
      in_string_ = false;
      return;
    }
    if (++run_ > kMaxStringBytes) {
      throw ConfigError(name_, "",
                        "a string at byte " + std::to_string(start_) + " is over " +
                            std::to_string(kMaxStringBytes >> 20) +
                            " MiB; t3sim reads strings of at most that (is it the right file? "
                            "shorten the value)");
    }
  }

  FilePtr file_;
  std::string name_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t offset_ = 0, start_ = 0, run_ = 0;
  bool in_string_ = false, escape_ = false;
};

// An input iterator over a ChunkReader, as nlohmann's iterator input adapter reads it; a default
// one is the end.
struct ByteIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;
  ChunkReader* reader = nullptr;
  char operator*() const { return reader->current(); }
  ByteIterator& operator++() {
    reader->advance();
    return *this;
  }
  bool done() const { return reader == nullptr || reader->at_end(); }
  bool operator==(const ByteIterator& other) const { return done() == other.done(); }
};

std::string escape_token(std::string_view key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

// The SAX handler: builds one element (or member) at a time; see the header.
class StreamHandler {
 public:
  using json = nlohmann::json;
  StreamHandler(const std::string& file, std::string_view key, const ElementHandler* on_element)
      : file_(file), key_(key), on_element_(on_element) {}

  bool null() { return scalar(nullptr); }
  bool boolean(bool v) { return scalar(v); }
  bool number_integer(json::number_integer_t v) { return scalar(v); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return scalar(v); }
  bool string(json::string_t& s) {
    take(kStringBytes + heap_chars(s.size()));
    return scalar(std::move(s));
  }
  bool binary(json::binary_t&) { return scalar(nullptr); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    if (depth_ == 1) return top_key(k);
    if (skip_) return true;
    take(kMemberBytes + heap_chars(k.size()));
    Frame& f = frames_.back();
    if (f.container->contains(k)) {
      fail("duplicate key \"" + k +
           "\" in this object (only one of them would be read); remove "
           "the duplicate");
    }
    f.key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string& token, const json::exception& e) {
    if (e.id == kNumberOverflow) {
      fail("number " + token + " is out of the range of a double; write a value within +-1.7e308");
    }
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }
  json& members() { return members_; }
  std::vector<std::string>& keys() { return keys_; }
  std::string at() const {
    if (member_.empty() && depth_ <= 1) return "";
    return "/" + escape_token(member_) + (streaming_ ? "/" + std::to_string(index_) : "");
  }

 private:
  static constexpr int kNumberOverflow = 406;
  // Per-value memory of a parsed nlohmann::json, as sim/json_file.cpp counts it.
  static constexpr std::uint64_t kMallocBytes = 16;
  static constexpr std::uint64_t kElementBytes = 32;
  static constexpr std::uint64_t kContainerBytes = 48 + kMallocBytes;
  static constexpr std::uint64_t kMemberBytes = 80 + kMallocBytes;
  static constexpr std::uint64_t kStringBytes = 32 + kMallocBytes;
  static std::uint64_t heap_chars(std::size_t n) { return n < 16 ? 0 : n + 1 + kMallocBytes; }

  struct Frame {
    json* container;
    std::string key;  // object: the key of the member being read
  };

  bool top_key(json::string_t& k) {
    if (!seen_.insert(k).second) {
      member_ = k;
      fail("duplicate key \"" + k +
           "\" in this object (only one of them would be read); remove "
           "the duplicate");
    }
    keys_.push_back(k);
    member_ = std::move(k);
    return true;
  }

  void take(std::uint64_t bytes) {
    if (skip_) return;
    value_bytes_ += bytes;
    if (value_bytes_ > kMaxStreamValueBytes) {
      fail("this value would take over " + std::to_string(kMaxStreamValueBytes >> 20) +
           " MiB of memory once read; t3sim's trace elements are small (is it the right file? "
           "split the value)");
    }
  }

  // Where a value that starts now goes: false when it is skipped.
  bool starts_value() {
    if (depth_ == 1) {  // a member of the top object
      skip_ = on_element_ == nullptr;
      value_bytes_ = 0;
      return !skip_;
    }
    if (depth_ == 2 && streaming_ && frames_.empty()) value_bytes_ = 0;  // an element
    return !skip_;
  }

  template <typename V>
  bool scalar(V&& v) {
    if (depth_ == 0) return true;  // a scalar document: refused by the caller's first-byte test
    if (!starts_value_or_inside()) return true;
    take(kElementBytes);
    place(json(std::forward<V>(v)));
    if (frames_.empty()) finish();
    return true;
  }

  bool starts_value_or_inside() { return frames_.empty() ? starts_value() : !skip_; }

  bool open(json&& container) {
    ++depth_;
    if (depth_ > kMaxJsonDepth) {
      fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
           " levels in this value; t3sim inputs are a few levels deep (is it the right file? "
           "flatten the value)");
    }
    if (depth_ == 1) return true;  // the top object
    const int parent = depth_ - 1;
    if (parent == 1 && frames_.empty() && on_element_ != nullptr && member_ == key_ &&
        container.is_array()) {
      streaming_ = true;
      index_ = 0;
      members_[member_] = json::array();  // streamed: present, its elements handed over
      return true;
    }
    depth_ -= 1;  // starts_value looks at the parent's depth
    const bool build = starts_value_or_inside();
    depth_ += 1;
    if (!build) return true;
    take(kElementBytes + kContainerBytes);
    frames_.push_back({place(std::move(container)), {}});
    return true;
  }

  bool close() {
    --depth_;
    if (skip_) {
      if (depth_ == 1) skip_ = false;
      return true;
    }
    if (depth_ == 0) return true;  // the top object
    if (frames_.empty()) {         // the streamed array itself
      streaming_ = false;
      return true;
    }
    frames_.pop_back();
    if (frames_.empty()) finish();
    return true;
  }

  json* place(json&& v) {
    if (frames_.empty()) {
      value_ = std::move(v);
      return &value_;
    }
    Frame& f = frames_.back();
    if (f.container->is_array()) {
      f.container->push_back(std::move(v));
      return &f.container->back();
    }
    json& slot = (*f.container)[f.key];
    slot = std::move(v);
    return &slot;
  }

  // A value at the base is complete: an element to hand over or a member to keep.
  void finish() {
    if (streaming_ && depth_ == 2) {
      (*on_element_)(value_, index_, members_);
      ++index_;
    } else {
      members_bytes_ += value_bytes_;
      if (members_bytes_ > kMaxJsonMemoryBytes) {
        fail("the document's other members would take over " +
             std::to_string(kMaxJsonMemoryBytes >> 20) + " MiB of memory (is it the right file?)");
      }
      members_[member_] = std::move(value_);
    }
    value_ = nullptr;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError(file_, at(), message);
  }

  const std::string& file_;
  std::string key_;
  const ElementHandler* on_element_;  // nullptr: only the top-level keys are wanted
  int depth_ = 0;                     // open containers, the top object included
  bool skip_ = false;                 // inside a member that is not built
  bool streaming_ = false;            // inside the streamed array
  std::size_t index_ = 0;             // of the element being read
  std::string member_;                // key of the top-level member being read
  std::set<std::string> seen_;
  std::vector<std::string> keys_;
  std::vector<Frame> frames_;  // containers open inside the value being built
  json value_;
  std::uint64_t value_bytes_ = 0;
  std::uint64_t members_bytes_ = 0;
  json members_ = json::object();
  std::string error_;
};

void run(const std::filesystem::path& path, StreamHandler& handler) {
  ChunkReader reader(path);
  const bool ok = nlohmann::json::sax_parse(ByteIterator{&reader}, ByteIterator{}, &handler,
                                            nlohmann::json::input_format_t::json,
                                            /*strict=*/true, /*ignore_comments=*/false);
  if (!ok) {
    throw ConfigError(path.string(), handler.at(),
                      "invalid JSON: " + handler.error() + " (fix the syntax at that byte)");
  }
}

}  // namespace

bool is_streamable_json(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) return false;
  for (int c = std::fgetc(f.get()); c != EOF; c = std::fgetc(f.get())) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

std::vector<std::string> top_level_keys(const std::filesystem::path& path) {
  const std::string file = path.string();
  StreamHandler handler(file, "", nullptr);
  run(path, handler);
  return std::move(handler.keys());
}

nlohmann::json stream_json_object(const std::filesystem::path& path, std::string_view key,
                                  const ElementHandler& on_element) {
  const std::string file = path.string();
  StreamHandler handler(file, key, &on_element);
  run(path, handler);
  return std::move(handler.members());
}

}  // namespace t3sim::workload
