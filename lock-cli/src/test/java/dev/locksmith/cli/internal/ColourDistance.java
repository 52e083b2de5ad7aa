package dev.locksmith.cli.internal;

/**
 * Whether two chart colours look different as thin lines: two chromatic colours need hues at least
 * 30° apart (red and brown, 11° apart, read as one colour), two greys lightness at least 0.3 apart;
 * a grey and a chromatic colour always differ.
 */
public final class ColourDistance {

  private static final double MIN_HUE_DEGREES = 30;
  private static final double MIN_GREY_LIGHTNESS = 0.3;

  private ColourDistance() {}

  /**
   * Whether {@code a} and {@code b} ({@code #rrggbb}) are told apart.
   *
   * @throws IllegalArgumentException if either is not {@code #rrggbb}
   */
  public static boolean distinct(String a, String b) {
    double[] x = hsl(a);
    double[] y = hsl(b);
    boolean greyX = x[1] < 0.25;
    boolean greyY = y[1] < 0.25;
    if (greyX && greyY) {
      return Math.abs(x[2] - y[2]) >= MIN_GREY_LIGHTNESS;
    }
    if (greyX || greyY) {
      return true;
    }
    double hue = Math.abs(x[0] - y[0]);
    return Math.min(hue, 360 - hue) >= MIN_HUE_DEGREES;
  }

  /** Hue (degrees), saturation and lightness (0 to 1) of {@code #rrggbb}. */
  static double[] hsl(String colour) {
    if (!colour.matches("#[0-9a-fA-F]{6}")) {
      throw new IllegalArgumentException("not a #rrggbb colour: '" + colour + "'");
    }
    double r = Integer.parseInt(colour.substring(1, 3), 16) / 255.0;
    double g = Integer.parseInt(colour.substring(3, 5), 16) / 255.0;
    double b = Integer.parseInt(colour.substring(5, 7), 16) / 255.0;
    double max = Math.max(r, Math.max(g, b));
    double min = Math.min(r, Math.min(g, b));
    double lightness = (max + min) / 2;
    double chroma = max - min;
    if (chroma == 0) {
      return new double[] {0, 0, lightness};
    }
    double saturation = chroma / (1 - Math.abs(2 * lightness - 1));
    double hue;
    if (max == r) {
      hue = 60 * (((g - b) / chroma) % 6);
    } else if (max == g) {
      hue = 60 * ((b - r) / chroma + 2);
    } else {
      hue = 60 * ((r - g) / chroma + 4);
    }
    return new double[] {hue < 0 ? hue + 360 : hue, saturation, lightness};
  }
}
