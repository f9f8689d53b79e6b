// What reaches the terminal: every byte a command writes to stdout or stderr passes a filter that
// writes control characters (bytes 0x00-0x1f other than tab and newline) as "\xNN", so
// that text from the input (an argument echoed in an error, a source spec echoed in a plan) can
// never be a terminal escape sequence. JSON output is unchanged by it (nlohmann writes control
// characters in strings as \u00NN already); DEL (0x7f, which JSON leaves raw and terminals ignore)
// and UTF-8 pass unchanged.
#pragma once

#include <ostream>
#include <streambuf>

namespace tmakit::cli {

class EscapingStreambuf : public std::streambuf {
 public:
  explicit EscapingStreambuf(std::streambuf* target) : target_(target) {}

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool put_escaped(unsigned char c);
  std::streambuf* target_;
};

// `os` filtered: writes go through an EscapingStreambuf into os's buffer; a failed write there
// fails this stream (and is seen by failed()).
class EscapedStream {
 public:
  explicit EscapedStream(std::ostream& os) : buf_(os.rdbuf()), stream_(&buf_), target_(os) {}
  std::ostream& stream() { return stream_; }
  // Flushes; true when a write to the target failed (a full disk, a closed descriptor).
  bool failed();

 private:
  EscapingStreambuf buf_;
  std::ostream stream_;
  std::ostream& target_;
};

}  // namespace tmakit::cli
