export const OVERLAY_TYPES = ['message', 'contact'] as const;
export const OVERLAY_POSITIONS = ['bl', 'br', 'tl', 'tr'] as const;
export const COLOR_PATTERN = /^#[0-9A-Fa-f]{6}$/;

export const OVERLAY_DOC = {
  type: '`message`: a message with a button; `contact`: the same box, meant for a contact call to action',
  message: 'Text of the box',
  button: 'Text of the button ("" for no button)',
  link: 'Where the button goes: an absolute http(s) URL, opened in a new tab ("" for no button)',
  bgcolor: 'Background of the box, #RRGGBB',
  textcolor: 'Text colour, #RRGGBB',
  buttoncolor: 'Button colour, #RRGGBB',
  position: 'Corner of the page the box sits in: bl (bottom left), br, tl, tr',
};
