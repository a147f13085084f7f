//! How the browser looks: colours, the texts it shows, number and date
//! formats, and where each pane goes on the screen.

pub mod format;
pub mod images;
pub mod layout;
pub mod strings;
pub mod theme;
