#include "net/http/content_decoder.h"

#include <brotli/decode.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "net/base/net_error.h"
#include "net/http/http_util.h"

namespace netstack {

// A single decoding step. Process consumes from *input and writes into out; it returns the
// bytes written or ERR_CONTENT_DECODING_FAILED (then message() says why). With input left and
// room in `out` it always makes progress, so callers never spin. After its stream ended it
// consumes and drops any further input.
class ContentDecoder::Stage {
 public:
  virtual ~Stage() = default;
  virtual int Init(std::string* message) = 0;
  virtual int Process(std::string_view* input, char* out, size_t out_len) = 0;
  virtual bool ended() const = 0;
  bool saw_input() const { return saw_input_; }
  const std::string& message() const { return message_; }

 protected:
  int Fail(std::string message) {
    message_ = std::move(message);
    return ERR_CONTENT_DECODING_FAILED;
  }
  bool saw_input_ = false;
  std::string message_;
};

namespace {

// gzip and deflate through zlib's inflate.
class ZlibStage : public ContentDecoder::Stage {
 public:
  // gzip: window bits 15 + 32 lets zlib accept both the gzip and the zlib header, as servers
  // mislabel. deflate: the header is sniffed from the first two bytes (zlib or raw).
  explicit ZlibStage(bool gzip) : gzip_(gzip) {}
  ~ZlibStage() override {
    if (initialized_) inflateEnd(&z_);
  }

  int Init(std::string* message) override {
    if (gzip_) return InitZlib(15 + 32, message);
    return OK;  // deflate: waits for two bytes to choose the format
  }

  int Process(std::string_view* input, char* out, size_t out_len) override {
    if (!input->empty()) saw_input_ = true;
    if (ended_) {
      input->remove_prefix(input->size());
      return 0;
    }
    if (!initialized_) {
      // deflate: "zlib" (RFC 1950) per the spec, but many servers send raw deflate (RFC 1951).
      // A valid zlib header is CM = 8, CINFO <= 7 and (CMF * 256 + FLG) divisible by 31.
      while (head_len_ < 2 && !input->empty()) {
        head_[head_len_++] = input->front();
        input->remove_prefix(1);
      }
      if (head_len_ < 2) return 0;
      auto cmf = static_cast<unsigned char>(head_[0]);
      auto flg = static_cast<unsigned char>(head_[1]);
      bool zlib = (cmf & 0x0F) == 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
      std::string message;
      if (InitZlib(zlib ? 15 : -15, &message) != OK) return Fail(message);
    }
    size_t written = 0;
    if (head_pos_ < head_len_) {
      std::string_view head(head_ + head_pos_, head_len_ - head_pos_);
      int rv = Inflate(&head, out, out_len);
      if (rv < 0) return rv;
      head_pos_ = head_len_ - head.size();
      written = static_cast<size_t>(rv);
      if (head_pos_ < head_len_ || ended_) {
        if (ended_) input->remove_prefix(input->size());
        return static_cast<int>(written);
      }
    }
    int rv = Inflate(input, out + written, out_len - written);
    if (rv < 0) return rv;
    return static_cast<int>(written) + rv;
  }

  bool ended() const override { return ended_; }

 private:
  int InitZlib(int window_bits, std::string* message) {
    std::memset(&z_, 0, sizeof(z_));
    if (inflateInit2(&z_, window_bits) != Z_OK) {
      *message = gzip_ ? "gzip: zlib failed to start" : "deflate: zlib failed to start";
      return ERR_CONTENT_DECODING_INIT_FAILED;
    }
    initialized_ = true;
    return OK;
  }

  int Inflate(std::string_view* input, char* out, size_t out_len) {
    size_t written = 0;
    while (written < out_len && !ended_) {
      size_t in_len = std::min<size_t>(input->size(), UINT_MAX);
      size_t room = std::min<size_t>(out_len - written, UINT_MAX);
      z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input->data()));
      z_.avail_in = static_cast<uInt>(in_len);
      z_.next_out = reinterpret_cast<Bytef*>(out + written);
      z_.avail_out = static_cast<uInt>(room);
      int rv = inflate(&z_, Z_NO_FLUSH);
      size_t consumed = in_len - z_.avail_in;
      size_t produced = room - z_.avail_out;
      input->remove_prefix(consumed);
      written += produced;
      if (rv == Z_STREAM_END) {
        ended_ = true;
        input->remove_prefix(input->size());  // bytes after the stream are ignored
        break;
      }
      // An error first: zlib may report corrupt data in a call that consumed and produced
      // nothing, which must not read as "needs input" (Decode would return 0 with input left).
      if (rv != Z_OK && rv != Z_BUF_ERROR) {
        return Fail(std::string(gzip_ ? "gzip: " : "deflate: ") +
                    (z_.msg ? z_.msg : "corrupt data"));
      }
      if (rv == Z_BUF_ERROR || (consumed == 0 && produced == 0)) break;  // needs input
    }
    return static_cast<int>(written);
  }

  const bool gzip_;
  z_stream z_{};
  bool initialized_ = false;
  bool ended_ = false;
  char head_[2] = {0, 0};
  size_t head_len_ = 0;
  size_t head_pos_ = 0;
};

class BrotliStage : public ContentDecoder::Stage {
 public:
  ~BrotliStage() override {
    if (state_) BrotliDecoderDestroyInstance(state_);
  }

  int Init(std::string* message) override {
    state_ = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
    if (!state_) {
      *message = "br: brotli failed to start";
      return ERR_CONTENT_DECODING_INIT_FAILED;
    }
    return OK;
  }

  int Process(std::string_view* input, char* out, size_t out_len) override {
    if (!input->empty()) saw_input_ = true;
    if (ended_) {
      input->remove_prefix(input->size());
      return 0;
    }
    size_t avail_in = input->size();
    auto* next_in = reinterpret_cast<const uint8_t*>(input->data());
    size_t avail_out = out_len;
    auto* next_out = reinterpret_cast<uint8_t*>(out);
    BrotliDecoderResult rv =
        BrotliDecoderDecompressStream(state_, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    input->remove_prefix(input->size() - avail_in);
    if (rv == BROTLI_DECODER_RESULT_ERROR) {
      return Fail(std::string("br: ") +
                  BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)));
    }
    if (rv == BROTLI_DECODER_RESULT_SUCCESS) {
      ended_ = true;
      input->remove_prefix(input->size());
    }
    return static_cast<int>(out_len - avail_out);
  }

  bool ended() const override { return ended_; }

 private:
  BrotliDecoderState* state_ = nullptr;
  bool ended_ = false;
};

}  // namespace

// static
const char* ContentDecoder::CodingName(Coding coding) {
  switch (coding) {
    case Coding::kGzip:
      return "gzip";
    case Coding::kDeflate:
      return "deflate";
    case Coding::kBrotli:
      return "br";
  }
  return "?";
}

ContentDecoder::ContentDecoder(int64_t max_output_bytes) : max_output_bytes_(max_output_bytes) {}

ContentDecoder::~ContentDecoder() = default;

// static
int ContentDecoder::Create(std::string_view content_encoding, int64_t max_output_bytes,
                           std::unique_ptr<ContentDecoder>* decoder, std::string* error) {
  std::unique_ptr<ContentDecoder> d(new ContentDecoder(max_output_bytes));
  std::vector<Coding> applied;  // in the order the server applied them
  for (std::string_view item : SplitHttpList(content_encoding)) {
    if (EqualsCaseInsensitiveAscii(item, "identity")) continue;
    if (EqualsCaseInsensitiveAscii(item, "gzip") || EqualsCaseInsensitiveAscii(item, "x-gzip")) {
      applied.push_back(Coding::kGzip);
    } else if (EqualsCaseInsensitiveAscii(item, "deflate")) {
      applied.push_back(Coding::kDeflate);
    } else if (EqualsCaseInsensitiveAscii(item, "br")) {
      applied.push_back(Coding::kBrotli);
    } else {
      d->unknown_encoding_ = true;
    }
  }
  if (d->unknown_encoding_) {
    *decoder = std::move(d);  // pass the body through untouched
    return OK;
  }
  if (applied.size() > kMaxCodings) {
    if (error) *error = "more than " + std::to_string(kMaxCodings) + " content codings";
    return ERR_CONTENT_DECODING_FAILED;
  }
  for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
    std::unique_ptr<Stage> stage;
    if (*it == Coding::kBrotli) {
      stage = std::make_unique<BrotliStage>();
    } else {
      stage = std::make_unique<ZlibStage>(*it == Coding::kGzip);
    }
    std::string message;
    int rv = stage->Init(&message);
    if (rv != OK) {
      if (error) *error = message;
      return rv;
    }
    d->codings_.push_back(*it);
    d->stages_.push_back(std::move(stage));
    d->stage_output_bytes_.push_back(0);
  }
  for (size_t i = 0; i + 1 < d->stages_.size(); ++i) {
    Buffer b;
    b.data = std::make_unique<char[]>(kStageBufferBytes);
    d->buffers_.push_back(std::move(b));
  }
  *decoder = std::move(d);
  return OK;
}

int ContentDecoder::Fail(int error, std::string message) {
  error_ = error;
  error_message_ = std::move(message);
  return error_;
}

int ContentDecoder::Decode(std::string_view* input, char* out, size_t out_len) {
  if (error_ != OK) return error_;
  if (out_len == 0) return Fail(ERR_INVALID_ARGUMENT, "empty output buffer");
  int rv;
  if (stages_.empty()) {
    size_t n = std::min(input->size(), std::min<size_t>(out_len, INT_MAX));
    if (n > 0) std::memcpy(out, input->data(), n);  // an empty view may have a null data()
    input->remove_prefix(n);
    rv = static_cast<int>(n);
  } else {
    rv = DecodeStage(stages_.size() - 1, input, out, std::min<size_t>(out_len, INT_MAX));
    if (rv < 0) return rv;
  }
  output_bytes_ += rv;
  if (output_bytes_ > max_output_bytes_) {
    return Fail(ERR_RESPONSE_BODY_TOO_BIG,
                "response body over " + std::to_string(max_output_bytes_) + " bytes");
  }
  return rv;
}

int ContentDecoder::RunStage(size_t index, std::string_view* input, char* out, size_t out_len) {
  Stage& stage = *stages_[index];
  int rv = stage.Process(input, out, out_len);
  if (rv < 0) return Fail(rv, stage.message());
  stage_output_bytes_[index] += rv;
  if (stage_output_bytes_[index] > max_output_bytes_) {
    return Fail(ERR_RESPONSE_BODY_TOO_BIG, std::string(CodingName(codings_[index])) +
                                               " output over " + std::to_string(max_output_bytes_) +
                                               " bytes");
  }
  return rv;
}

int ContentDecoder::DecodeStage(size_t index, std::string_view* input, char* out, size_t out_len) {
  if (index == 0) return RunStage(0, input, out, out_len);
  // Stage `index` reads the output of stage `index - 1`, refilling that buffer on demand.
  Buffer& buf = buffers_[index - 1];
  size_t total = 0;
  while (total < out_len) {
    bool upstream_dry = false;
    if (buf.unread() == 0) {
      buf.pos = buf.len = 0;
      int rv = DecodeStage(index - 1, input, buf.data.get(), kStageBufferBytes);
      if (rv < 0) return rv;
      buf.len = static_cast<size_t>(rv);
      upstream_dry = rv == 0;
    }
    std::string_view in(buf.data.get() + buf.pos, buf.unread());
    // Called even with no input: the stage may hold decoded bytes that did not fit before.
    int rv = RunStage(index, &in, out + total, out_len - total);
    if (rv < 0) return rv;
    buf.pos = buf.len - in.size();
    total += static_cast<size_t>(rv);
    if (rv == 0 && upstream_dry) break;  // everything upstream is drained
  }
  return static_cast<int>(total);
}

int ContentDecoder::Finish() {
  if (error_ != OK) return error_;
  for (size_t i = 0; i < stages_.size(); ++i) {
    if (stages_[i]->saw_input() && !stages_[i]->ended()) {
      return Fail(ERR_CONTENT_DECODING_FAILED,
                  std::string(CodingName(codings_[i])) + ": compressed body ended early");
    }
    if (i < buffers_.size() && buffers_[i].unread() > 0) {
      return Fail(ERR_CONTENT_DECODING_FAILED, "decoded bytes left unread");
    }
  }
  return OK;
}

}  // namespace netstack
