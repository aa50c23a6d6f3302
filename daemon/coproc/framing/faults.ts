/** What a framing layer reports when the bytes on the line are not a valid frame. */
export type FrameFault =
  | 'garbage' // bytes that do not start a frame were skipped (resynchronisation)
  | 'too_long' // a length beyond the limits: rejected before anything is allocated
  | 'bad_endpoint' // a TLV frame naming an endpoint other than ctrlResp / ctrlEvnt
  | 'bad_checksum' // an esp_payload_header frame whose 16-bit byte sum does not match
  | 'truncated'; // a message ended in the middle of a TLV frame

export interface FrameHandlers {
  frame(endpoint: Endpoint, data: Buffer): void;
  fault(fault: FrameFault, detail: string): void;
}

export type Endpoint = 'ctrlResp' | 'ctrlEvnt';
