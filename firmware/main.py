"""Board entry point (MicroPython on an RP2040): build the real hardware objects and run the dice core.

Wiring and deployment: firmware/README.md. Hold the button while the board starts to skip the firmware and
keep the REPL (the protocol needs Ctrl-C disabled on the USB port, so this is how you get back in to update
it).
"""

import os
import time

import machine
import micropython

from firmware.dice.device import Device
from firmware.dice.streams import StdioStream, UartStream
from firmware.dice.views import PipLeds, TextDisplay

BUTTON_PIN = 15  # GP15 to GND, internal pull-up
LED_PINS = (16, 17, 18, 19)  # centre, diagonal A, diagonal B, middle pair (see README)
STATUS_LED = "LED"  # on-board LED: lit while the firmware runs
USE_UART = False  # True: protocol on UART0 (GP0 TX, GP1 RX) instead of the USB port
UART_BAUD = 115200
DISPLAY_I2C = (1, 6, 7)  # I2C1, SDA GP6, SCL GP7; used when an SSD1306 answers at 0x3C
DISPLAY_HEIGHT = 32  # 128x32 module; 64 for 128x64
WATCHDOG_MS = 2000


def reset_cause():
    cause = machine.reset_cause()
    if cause == machine.WDT_RESET:
        return 1
    if cause == machine.PWRON_RESET:
        return 0
    return 2


def make_display():
    bus, sda, scl = DISPLAY_I2C
    try:
        i2c = machine.I2C(bus, sda=machine.Pin(sda), scl=machine.Pin(scl), freq=400000)
        if 0x3C not in i2c.scan():
            return None
        from firmware.dice.ssd1306 import SSD1306

        return TextDisplay(SSD1306(i2c, 128, DISPLAY_HEIGHT))
    except OSError:
        return None


def main():
    button = machine.Pin(BUTTON_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    if button.value() == 0:
        print("dice: button held at boot, firmware not started (REPL stays available)")
        return
    status = machine.Pin(STATUS_LED, machine.Pin.OUT)
    status.value(1)
    views = [PipLeds([machine.Pin(n, machine.Pin.OUT) for n in LED_PINS], time)]
    display = make_display()
    if display is not None:
        views.append(display)
    if USE_UART:
        stream = UartStream(machine.UART(0, UART_BAUD, tx=machine.Pin(0), rx=machine.Pin(1), timeout=0))
    else:
        # The protocol is binary: 0x03 must not raise KeyboardInterrupt on the USB port.
        micropython.kbd_intr(-1)
        stream = StdioStream()
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    device = Device(
        stream,
        os.urandom,
        time,
        button=button,
        views=views,
        watchdog=watchdog,
        device_id=machine.unique_id(),
        reset_cause=reset_cause(),
    )
    # No try/except: if the loop dies, the watchdog (no longer fed) restarts the board within WATCHDOG_MS.
    device.run()


main()
