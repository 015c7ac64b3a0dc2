//! The small tables of the fleet schema (examples/fleet.fbs) that tests build by hand, each
//! from its values in one call, in the order flatc's generated code would write them.

use crate::fleet::{Camera, CameraArgs, Motor, MotorArgs, Sensor, SensorArgs};
use flatbuffers::{FlatBufferBuilder, WIPOffset};

/// A `Sensor`; `None` leaves a field absent.
pub fn sensor<'a>(
    b: &mut FlatBufferBuilder<'a>,
    name: Option<&str>,
    readings: Option<&[f64]>,
) -> WIPOffset<Sensor<'a>> {
    let name = name.map(|n| b.create_string(n));
    let readings = readings.map(|r| b.create_vector(r));
    Sensor::create(b, &SensorArgs { name, readings })
}

/// A `Motor`.
pub fn motor<'a>(
    b: &mut FlatBufferBuilder<'a>,
    rpm: i32,
    temperature: f32,
) -> WIPOffset<Motor<'a>> {
    Motor::create(b, &MotorArgs { rpm, temperature })
}

/// A `Camera` with both fields set.
pub fn camera<'a>(
    b: &mut FlatBufferBuilder<'a>,
    resolution: &[u16],
    lens: &str,
) -> WIPOffset<Camera<'a>> {
    let resolution = Some(b.create_vector(resolution));
    let lens = Some(b.create_string(lens));
    Camera::create(b, &CameraArgs { resolution, lens })
}
