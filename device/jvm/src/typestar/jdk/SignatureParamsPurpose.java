package typestar.jdk;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Arrays;
import java.util.List;
import typestar.agent.HarnessFailure;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;
import typestar.agent.Values;

/**
 * {@code java.security.Signature} ("SHA256withRSA") with parameters, PSYCO's Signature example
 * (docs/targets/java_signature_params.md). Like PSYCO, every method starts as one abstract input
 * (one partition {@code any}, guard {@code true}); alphabet refinement has to find the splits.
 * Callins: {@code initSign(key)} with an RSA private key (the right kind), an EC private key (the
 * wrong kind) or null; {@code initVerify(key)} likewise with public keys; {@code update(data)} with
 * null, empty or 8 bytes; {@code sign()}; {@code verify(sig)} with a valid signature of the fixed
 * data, a wrong signature of the right length (256 bytes), a 4-byte one, or null (the boolean
 * result is ignored). No callbacks.
 */
public final class SignatureParamsPurpose implements PurposeProvider {
    private static final byte[] DATA = "typestar".getBytes(StandardCharsets.US_ASCII);
    private static KeyPair rsa;
    private static KeyPair ec;
    private static byte[] signature;

    private static synchronized void keys() throws Exception {
        if (rsa != null) return;
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        rsa = g.generateKeyPair();
        KeyPairGenerator e = KeyPairGenerator.getInstance("EC");
        e.initialize(256);
        ec = e.generateKeyPair();
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(rsa.getPrivate());
        s.update(DATA);
        signature = s.sign();
    }

    private static PrivateKey privateKey(String v) {
        return switch (v) {
            case "RSA private" -> rsa.getPrivate();
            case "EC private" -> ec.getPrivate();
            case "null" -> null;
            default -> throw new HarnessFailure("initSign: no key '" + v + "'");
        };
    }

    private static PublicKey publicKey(String v) {
        return switch (v) {
            case "RSA public" -> rsa.getPublic();
            case "EC public" -> ec.getPublic();
            case "null" -> null;
            default -> throw new HarnessFailure("initVerify: no key '" + v + "'");
        };
    }

    private static byte[] data(String v) {
        return switch (v) {
            case "null" -> null;
            case "empty" -> new byte[0];
            case "8 bytes" -> DATA.clone();
            default -> throw new HarnessFailure("update: no data '" + v + "'");
        };
    }

    private static byte[] sig(String v) {
        return switch (v) {
            case "valid" -> signature.clone();
            case "wrong, 256 bytes" -> {
                byte[] b = signature.clone();
                b[b.length - 1] ^= 1;
                yield b;
            }
            case "4 bytes" -> Arrays.copyOf(signature, 4);
            case "null" -> null;
            default -> throw new HarnessFailure("verify: no signature '" + v + "'");
        };
    }

    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("java.security.Signature", Signature.class)
                .framework("jdk-" + Runtime.version().feature())
                .reset(sink -> {
                    keys();
                    return Signature.getInstance("SHA256withRSA");
                })
                .callinWith("initSign", List.of(LearningPurpose.param("key", "object")),
                        (s, v) -> s.initSign(privateKey(v)))
                .partition("initSign", "any", "true", Values.fixed("RSA private", "EC private", "null"))
                .callinWith("initVerify", List.of(LearningPurpose.param("key", "object")),
                        (s, v) -> s.initVerify(publicKey(v)))
                .partition("initVerify", "any", "true", Values.fixed("RSA public", "EC public", "null"))
                .callin("sign", Signature::sign)
                .callinWith("update", List.of(LearningPurpose.param("data", "bytes")), (s, v) -> s.update(data(v)))
                .partition("update", "any", "true", Values.fixed("8 bytes", "empty", "null"))
                .callinWith("verify", List.of(LearningPurpose.param("sig", "bytes")), (s, v) -> s.verify(sig(v)))
                .partition("verify", "any", "true", Values.fixed("valid", "wrong, 256 bytes", "4 bytes", "null"))
                .timing(10, 0)
                .quietIsStable();
    }
}
