#include "runner/data/jpeg_codec.h"

#include <csetjmp>
#include <cstdio>
#include <fstream>
#include <iterator>

#include <jpeglib.h>

#include "runner/data/data_bytes.h"

namespace ergobench {
namespace {

// libjpeg reports a fatal error by calling error_exit, which must not return: it jumps back
// to the call's setjmp with the message kept. Warnings (ImageNet has files with extraneous
// bytes that every decoder tolerates) are ignored.
struct ErrorJump {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void JumpOnError(j_common_ptr info) {
  ErrorJump* error = reinterpret_cast<ErrorJump*>(info->err);
  (*info->err->format_message)(info, error->message);
  std::longjmp(error->jump, 1);
}

void IgnoreWarning(j_common_ptr, int) {}

// Adobe's CMYK JPEGs store inverted ink: R = C·K/255 on the stored values.
void CmykToRgb(const uint8_t* cmyk, int width, uint8_t* rgb) {
  for (int x = 0; x < width; ++x, cmyk += 4, rgb += 3) {
    const int k = cmyk[3];
    for (int c = 0; c < 3; ++c) rgb[c] = static_cast<uint8_t>((cmyk[c] * k + 127) / 255);
  }
}

// The body of DecodeJpeg between setjmp and cleanup: no C++ object with a destructor may
// live across the longjmp, so the result is written into `out` only.
void DecodeInto(jpeg_decompress_struct* info, int min_side, RgbImage* out, std::vector<uint8_t>* row) {
  jpeg_read_header(info, TRUE);
  const bool cmyk = info->jpeg_color_space == JCS_CMYK || info->jpeg_color_space == JCS_YCCK;
  info->out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
  const int shorter = static_cast<int>(std::min(info->image_width, info->image_height));
  info->scale_num = 1;
  info->scale_denom = 1;
  for (unsigned denom : {8u, 4u, 2u}) {
    if (min_side > 0 && shorter / static_cast<int>(denom) >= min_side) {
      info->scale_denom = denom;
      break;
    }
  }
  jpeg_start_decompress(info);
  out->width = static_cast<int>(info->output_width);
  out->height = static_cast<int>(info->output_height);
  out->pixels.resize(static_cast<size_t>(out->width) * out->height * 3);
  row->resize(static_cast<size_t>(out->width) * info->output_components);
  while (info->output_scanline < info->output_height) {
    uint8_t* dst = out->pixels.data() + static_cast<size_t>(info->output_scanline) * out->width * 3;
    JSAMPROW target = cmyk ? row->data() : dst;
    jpeg_read_scanlines(info, &target, 1);
    if (cmyk) CmykToRgb(row->data(), out->width, dst);
  }
  jpeg_finish_decompress(info);
}

}  // namespace

StatusOr<RgbImage> DecodeJpeg(const std::string& bytes, int min_side, const std::string& name) {
  RgbImage image;
  std::vector<uint8_t> row;
  jpeg_decompress_struct info;
  ErrorJump error;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = JumpOnError;
  error.manager.emit_message = IgnoreWarning;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    return Status::InvalidArgument(name + ": not a JPEG libjpeg can decode: " + error.message);
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  DecodeInto(&info, min_side, &image, &row);
  jpeg_destroy_decompress(&info);
  return image;
}

StatusOr<RgbImage> DecodeJpegFile(const std::string& path, int min_side) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::Unavailable(path + ": read failed");
  CountDataBytes(static_cast<int64_t>(bytes.size()));
  return DecodeJpeg(bytes, min_side, path);
}

StatusOr<std::string> EncodeJpeg(const RgbImage& image, int quality) {
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() != static_cast<size_t>(image.width) * image.height * 3) {
    return Status::InvalidArgument("EncodeJpeg: pixels do not match " + std::to_string(image.width) + "x" +
                                   std::to_string(image.height) + " RGB");
  }
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_compress_struct info;
  ErrorJump error;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = JumpOnError;
  if (setjmp(error.jump)) {
    jpeg_destroy_compress(&info);
    std::free(buffer);
    return Status::Internal(std::string("EncodeJpeg: ") + error.message);
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(image.width);
  info.image_height = static_cast<JDIMENSION>(image.height);
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  if (quality > 90) {
    for (int c = 0; c < 3; ++c) info.comp_info[c].h_samp_factor = info.comp_info[c].v_samp_factor = 1;
  }
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(image.pixels.data()) + static_cast<size_t>(info.next_scanline) * image.width * 3;
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  jpeg_destroy_compress(&info);
  std::free(buffer);
  return out;
}

}  // namespace ergobench
