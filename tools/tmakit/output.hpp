// What reaches the terminal: every byte a command writes to stdout or stderr passes a filter that
// keeps text from the input (an argument echoed in an error, a source spec echoed in a plan) from
// ever being a terminal control sequence:
//   - C0 controls (bytes 0x00-0x1f but tab and newline) are written "\xNN";
//   - C1 controls (U+0080-U+009F, in UTF-8 the bytes C2 80 .. C2 9F; U+009B is the one-character CSI
//     some terminals obey) are written "\u00NN", which inside a JSON string is the same character;
//   - bytes that are not part of well-formed UTF-8 (a lone continuation byte, a sequence cut short,
//     an overlong or surrogate form, a byte no UTF-8 uses) are written "\xNN";
//   - everything else, all other well-formed UTF-8 included, passes unchanged.
// JSON output stays valid: nlohmann writes C0 controls in strings as \u00NN already and json_text
// replaces invalid UTF-8, so the only change it can see is a C1 control written as its own JSON
// escape. DEL (0x7f, which JSON leaves raw and terminals ignore) passes unchanged.
#pragma once

#include <ostream>
#include <streambuf>

namespace tmakit::cli {

class EscapingStreambuf : public std::streambuf {
 public:
  explicit EscapingStreambuf(std::streambuf* target) : target_(target) {}
  ~EscapingStreambuf() override { finish(); }
  // Writes what is left of a UTF-8 sequence cut short by the end of the output, escaped.
  bool finish();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool put(unsigned char c);  // one byte through the filter
  bool put_hex(unsigned char c);
  bool flush_pending_escaped();
  std::streambuf* target_;
  unsigned char pending_[4] = {};  // the UTF-8 sequence read so far
  int npending_ = 0, need_ = 0;    // its bytes, and how many it takes
};

// `os` filtered: writes go through an EscapingStreambuf into os's buffer; a failed write there
// fails this stream (and is seen by failed()).
class EscapedStream {
 public:
  explicit EscapedStream(std::ostream& os) : buf_(os.rdbuf()), stream_(&buf_), target_(os) {}
  std::ostream& stream() { return stream_; }
  // Flushes (a UTF-8 sequence left unfinished included); true when a write to the target failed
  // (a full disk, a closed descriptor).
  bool failed();

 private:
  EscapingStreambuf buf_;
  std::ostream stream_;
  std::ostream& target_;
};

}  // namespace tmakit::cli
